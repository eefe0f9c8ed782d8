// The dice as both pages draw them (index.html's app.js, play.html's play.js): a die's face
// in SVG, its pips, the special faces' symbols and their words. The page's script defines
// the words they are said in: its `words` (words.py's page_words) and `say(key, fields)`.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const DICE = ["green", "purple", "red"];
// Pip centres on a 100-unit face, laid out as on a real die.
const L = 27, C = 50, R = 73;
const PIPS = {
  1: [[C, C]],
  2: [[R, L], [L, R]],
  3: [[R, L], [C, C], [L, R]],
  4: [[L, L], [R, L], [L, R], [R, R]],
  5: [[L, L], [R, L], [C, C], [L, R], [R, R]],
};
// The dice, as style.css's --green, --purple and --red; dark enough that the white INK of
// the pips and words reads at 4.5:1 on each (tests/test_page_contrast.py).
const COLOURS = { green: "#1d8442", purple: "#9650c8", red: "#d02c2c" };
const INK = "#ffffff";

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function star(cx, cy, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const r = i % 2 === 0 ? outer : inner;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return points.join(" ");
}

// One die's face: pips for 1 to 5; for the special face a symbol and a word.
function dieSvg(die, face, options) {
  const svg = el("svg", { viewBox: "0 0 100 100", role: "img" });
  el("rect", { x: 3, y: 3, width: 94, height: 94, rx: 14, fill: COLOURS[die] }, svg);
  let label = say("no_roll");
  if (face === null || face === undefined) {
    el("rect", { x: 14, y: 14, width: 72, height: 72, rx: 8, fill: "none",
      stroke: INK, "stroke-opacity": 0.35, "stroke-width": 2 }, svg);
  } else if (face === "*") {
    let word = say("special");
    let spoken = null;
    if (die === "red") {
      el("polygon", { points: "50,14 86,76 14,76", fill: INK }, svg);
      el("rect", { x: 46, y: 34, width: 8, height: 24, rx: 3, fill: COLOURS.red }, svg);
      el("circle", { cx: 50, cy: 66, r: 4.5, fill: COLOURS.red }, svg);
      word = say("hazard");
    } else {
      el("polygon", { points: star(50, 44, 30, 12), fill: INK }, svg);
      const green = options && options.green;
      if (die === "purple") {
        word = words.penny.face;
        spoken = words.penny.words;
      } else {
        word = (green && (words.green[green] || green)) || say("special");
      }
      const text = el("text", { x: 50, y: 90, "text-anchor": "middle", "font-size": 14,
        "font-weight": "bold", fill: INK }, svg);
      text.textContent = word;
    }
    label = say("die_face", { die: words.dice[die] || die, face: spoken || word });
  } else {
    for (const [x, y] of PIPS[face] || []) el("circle", { cx: x, cy: y, r: 9.5, fill: INK }, svg);
    label = say("die_face", { die: words.dice[die] || die, face });
  }
  el("title", {}, svg).textContent = label;
  return svg;
}

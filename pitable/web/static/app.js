// The table's page: draws the box's latest snapshot and each one the box sends after it.
// Plain JavaScript, no framework and no build step: EventSource for the live events,
// fetch for the state and the PIN-guarded actions, SVG drawn from the snapshot.
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
const COLOURS = { green: "#28aa50", purple: "#9650c8", red: "#dc3232" };

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
  let label = "no roll yet";
  if (face === null || face === undefined) {
    el("rect", { x: 14, y: 14, width: 72, height: 72, rx: 8, fill: "none",
      stroke: "#ffffff", "stroke-opacity": 0.35, "stroke-width": 2 }, svg);
  } else if (face === "*") {
    let word = "special";
    if (die === "red") {
      el("polygon", { points: "50,14 86,76 14,76", fill: "#ffffff" }, svg);
      el("rect", { x: 46, y: 34, width: 8, height: 24, rx: 3, fill: COLOURS.red }, svg);
      el("circle", { cx: 50, cy: 66, r: 4.5, fill: COLOURS.red }, svg);
      word = "hazard";
    } else {
      el("polygon", { points: star(50, 44, 30, 12), fill: "#ffffff" }, svg);
      word = die === "purple" ? "1-15" : (options && options.green) || "special";
      const text = el("text", { x: 50, y: 90, "text-anchor": "middle", "font-size": 14,
        "font-weight": "bold", fill: "#ffffff" }, svg);
      text.textContent = word;
    }
    label = `${die}: ${word}`;
  } else {
    for (const [x, y] of PIPS[face] || []) el("circle", { cx: x, cy: y, r: 9.5, fill: "#ffffff" }, svg);
    label = `${die}: ${face}`;
  }
  el("title", {}, svg).textContent = label;
  return svg;
}

// 1 2 3 ... 15 reads better as 1-15.
function numbersText(numbers) {
  if (!numbers || numbers.length === 0) return "";
  const run = numbers.every((n, i) => i === 0 || n === numbers[i - 1] + 1);
  if (run && numbers.length > 5) return `${numbers[0]}-${numbers[numbers.length - 1]}`;
  return numbers.join(" ");
}

function gameText(s) {
  const parts = [s.mode === "solo" ? "solo game" : "table game"];
  if (s.map) parts.push(`map ${s.map}`);
  if (s.round !== null && s.round !== undefined) {
    parts.push(s.round_limit ? `round ${s.round} of ${s.round_limit}` : `round ${s.round}`);
  }
  if (s.hazards !== null && s.hazards !== undefined) {
    parts.push(s.hazard_limit ? `dangers ${s.hazards} of ${s.hazard_limit}` : `dangers ${s.hazards}`);
  }
  if (s.result) parts.push(`level: ${s.result}`);
  return parts.join(" · ");
}

let titlesShown = false;

function showTitles(titles, current) {
  if (titlesShown || !titles) return;
  const select = document.getElementById("new-title");
  for (const t of titles) {
    const option = document.createElement("option");
    option.value = t.key;
    option.textContent = t.name;
    option.selected = t.key === current;
    select.appendChild(option);
  }
  titlesShown = true;
}

function render(s) {
  const table = document.getElementById("table");
  if (Number(table.dataset.seq) > s.seq && s.seq !== 1) return;  // an older event
  table.dataset.seq = String(s.seq);
  table.classList.toggle("rolling", Boolean(s.rolling));
  table.classList.toggle("hazard", Boolean(s.hazard));
  document.getElementById("title").textContent = s.title_name;
  document.getElementById("game").textContent = gameText(s);
  const roll = s.roll || [null, null, null];
  DICE.forEach((die, i) => {
    const figure = document.getElementById(`die-${die}`);
    const face = s.rolling ? null : roll[i];
    figure.dataset.face = face === null || face === undefined ? "" : String(face);
    figure.replaceChildren(dieSvg(die, face, s.options));
  });
  document.getElementById("numbers").textContent = s.rolling ? "" : numbersText(s.numbers);
  const words = document.getElementById("words");
  const lines = s.rolling ? ["Rolling..."] : (s.words.length ? s.words : [s.message || ""]);
  words.replaceChildren(...lines.map((line) => {
    const p = document.createElement("p");
    p.textContent = line;
    return p;
  }));
  const recent = document.getElementById("recent");
  recent.replaceChildren(...(s.recent || []).slice(0, 6).map((options) => {
    const li = document.createElement("li");
    options.roll.forEach((face, i) => {
      const chip = document.createElement("span");
      chip.className = `chip ${DICE[i]}`;
      chip.textContent = String(face);
      li.appendChild(chip);
    });
    return li;
  }));
}

function linkState(live) {
  const link = document.getElementById("link");
  link.className = `link ${live ? "live" : "lost"}`;
  link.textContent = live ? "live" : "reconnecting";
}

async function act(path, body) {
  const answer = document.getElementById("answer");
  const pin = document.getElementById("pin").value.trim();
  try {
    sessionStorage.setItem("pitable-pin", pin);
  } catch (e) { /* private mode: the PIN is typed again next time */ }
  const response = await fetch(path, {
    method: "POST",
    headers: { "X-Pitable-Pin": pin, "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
  });
  let said = {};
  try { said = await response.json(); } catch (e) { said = {}; }
  answer.textContent = response.ok ? "" : (said.error || `refused (${response.status})`);
}

function start() {
  try {
    document.getElementById("pin").value = sessionStorage.getItem("pitable-pin") || "";
  } catch (e) { /* no storage */ }
  document.getElementById("roll").addEventListener("click", () => act("/api/roll"));
  document.getElementById("pin-form").addEventListener("submit", (e) => e.preventDefault());
  document.getElementById("new-game").addEventListener("submit", (e) => {
    e.preventDefault();
    act("/api/new-game", {
      title: document.getElementById("new-title").value,
      mode: document.getElementById("new-mode").value,
    });
  });
  fetch("/api/state").then((r) => r.json()).then((s) => {
    showTitles(s.titles, s.title);
    if (s.seq) render(s);
  }).catch(() => linkState(false));
  const events = new EventSource("/api/events");
  events.onopen = () => linkState(true);
  events.onerror = () => linkState(false);
  events.onmessage = (e) => { linkState(true); render(JSON.parse(e.data)); };
}

document.addEventListener("DOMContentLoaded", start);

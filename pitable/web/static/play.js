// A player's own sheet on their phone: the map drawn from the sheet the box sends
// (GET /api/sheet), each move tapped on it and sent to the box, which checks it by the rules
// and answers with the sheet as it now stands (docs: the phone API). The page holds no rule
// of its own: what may go where is the sheet's "choices" and "groups", as the box offers them.
// Plain JavaScript like app.js; dice.js draws the dice, stream.js reads the box's events.
"use strict";

// The page's words: English as written here until the box's language is known, then that
// language's, from /api/words/<lang> (words.py). Fields in braces are filled in by say().
let words = {
  lang: "en",
  words: {
    connecting: "connecting", connection: "connection to the box", live: "live",
    reconnecting: "reconnecting", connected: "connected to the box",
    not_connected: "not connected to the box", answered: "the box answered {status}",
    ended: "the box ended the stream", unreachable: "the box cannot be reached",
    no_answer: "the box did not answer: try again", refused: "refused ({status})",
    no_roll: "no roll yet", special: "special", hazard: "hazard", die_face: "{die}: {face}",
    the_dice: "the dice", solo_game: "solo game", table_game: "table game",
    round_of: "round {round} of {limit}", round: "round {round}", level: "level: {result}",
    your_initials: "Your initials", initials_hint: "1 to 3 letters", join: "Join the game",
    your_sheet: "your sheet", cell: "row {row}, column {column}",
    cell_is: "row {row}, column {column}: {what}", empty: "empty",
    crossed: "hazard crossed out", treasure: "treasure {value}", found: "discovery {mark}",
    choose: "What goes in row {row}, column {column}?", cancel: "Cancel",
    pick_spaces: "{label}: tap its spaces ({chosen} of {size})", this_turn: "This turn",
    no_move: "no move yet", first_roll: "Waiting for the first roll",
    turn_done: "Turn done: wait for the next roll", game_over: "Game over",
    take_back: "Take back", done: "Done", done_anyway: "Done anyway",
    keep_playing: "Keep playing", not_finished: "This turn is not finished:", score: "Score",
    total: "Total", print_sheet: "Print my sheet",
    deal_other: "Draw the hazard on {initials}'s sheet: tap a red space",
    deal_own: "Draw the hazard on your own sheet: tap a red space",
    deal_own_why: "No one else plays on a phone, so your own sheet takes it",
    deal_drawn: "You drew the hazard on {initials}'s sheet",
    deal_full: "{initials}'s sheet has no space left for the hazard",
    on_me: "{initials} drew a hazard on your sheet: row {row}, column {column}",
    on_me_waiting: "Another player is drawing a hazard on your sheet",
    box_drew_for_you: "The box drew your hazard of round {round} on {initials}'s sheet",
    box_drew_on_you: "The box drew a hazard on your sheet: row {row}, column {column}",
    pace: "{done} of {players} done",
    writing: "still writing: {initials}",
    last_round: "Last round: the game ends after it",
    ranking: "Ranking",
    finished_sheets: "Every finished sheet",
    ranked: "{place}. {initials}, stars: {total}",
    ranked_shared: "{place}= {initials}, stars: {total}",
    bot_player: "(the box)",
    paper_player: "(paper)",
    paper_title: "Played on paper? Add your stars",
    paper_initials: "Initials",
    paper_total: "Stars",
    score_added: "{initials}'s stars are in the ranking",
    add_rival: "Add the box as a player",
    rival_greedy: "Quick rival",
    rival_plan: "Planning rival",
    rival_deep: "Deep rival",
    add: "Add",
    rival_added: "The box plays as {initials}",
    printing: "Your sheet is on its way to the box's printer", export_sheet: "Save as text",
  },
  dice: { green: "green", purple: "purple", red: "red" },
  green: {},
  penny: { face: "1-15", words: "from 1 to 15" },
  titles: null,
};
let wordsAsked = "en";

function say(key, fields) {
  let text = words.words[key] || key;
  for (const [name, value] of Object.entries(fields || {})) {
    text = text.split(`{${name}}`).join(String(value));
  }
  return text;
}

function showWords() {
  document.documentElement.lang = words.lang;
  for (const node of document.querySelectorAll("[data-word]")) {
    node.textContent = say(node.dataset.word);
  }
  for (const node of document.querySelectorAll("[data-word-title]")) {
    node.title = say(node.dataset.wordTitle);
  }
  for (const node of document.querySelectorAll("[data-word-label]")) {
    node.setAttribute("aria-label", say(node.dataset.wordLabel));
  }
  if (lastLink) linkState(...lastLink);
}

// The box's language, which the page follows: its own words, and the sheet's (the box
// translates the sheet's labels, the roll's reading and its refusals).
function followLanguage(lang) {
  if (!lang || lang === wordsAsked) return;
  wordsAsked = lang;
  fetch(`/api/words/${encodeURIComponent(lang)}`).then((r) => r.json()).then((w) => {
    if (w.lang !== wordsAsked) return;  // the box changed again meanwhile
    words = w;
    showWords();
    if (sheet) draw(sheet);
    if (token) load();  // the sheet's own words, in the new language
  }).catch(() => { wordsAsked = words.lang; /* asked again with the next snapshot */ });
}

// --- talking to the box --------------------------------------------------------------

const TOKEN_KEY = "pitable-player";
// The player's token: a secret, kept in this browser and sent in a header only.
let token = null;
// The sheet shown, as the box sent it last.
let sheet = null;
// A move on its way: taps wait for its answer.
let busy = false;

function storedToken() {
  try { return localStorage.getItem(TOKEN_KEY); } catch (e) { return token; }
}

function keepToken(value) {
  token = value;
  try {
    if (value) localStorage.setItem(TOKEN_KEY, value);
    else localStorage.removeItem(TOKEN_KEY);
  } catch (e) { /* private mode: the token lasts as long as the page */ }
}

function tell(text) {
  document.getElementById("message").textContent = text || "";
}

// One call to the box: resolves to {status, body} (body {} when it is not JSON), or to
// null when the box did not answer (said on the page).
async function api(method, path, body) {
  const headers = { "X-Pitable-Lang": words.lang };
  if (token) headers["X-Pitable-Player"] = token;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    tell(say("no_answer"));
    return null;
  }
  let said = {};
  try { said = await response.json(); } catch (e) { said = {}; }
  return { status: response.status, body: said || {} };
}

// What the box said to a call: a sheet to draw, its refusal in its own words, or a token it
// no longer knows (the player joins again).
function answered(answer) {
  if (!answer) return;
  const { status, body } = answer;
  if (status === 401) {
    keepToken(null);
    showJoin();
    tell(body.error || "");
    return;
  }
  if (body.sheet && status === 422) {
    draw(body.sheet);
    tell(body.error || say("refused", { status }));
    return;
  }
  if (status >= 200 && status < 300 && body.map) {
    draw(body);
    tell("");
    return;
  }
  tell(body.error || say("refused", { status }));
}

async function load() {
  if (!token) {
    showJoin();
    return;
  }
  const answer = await api("GET", `/api/sheet?lang=${encodeURIComponent(words.lang)}`);
  if (answer && answer.status === 409) {
    // No game in progress, or a new one: the player joins it (their token stays theirs
    // until a new one is given).
    showJoin();
    tell(answer.body.error || "");
    return;
  }
  answered(answer);
}

async function send(method, path, body) {
  if (busy) return;
  busy = true;
  try {
    answered(await api(method, path, body));
  } finally {
    busy = false;
  }
}

function move(act, cells, value) {
  // The turn it is made for: the box refuses it if the next roll came first.
  const round = sheet && sheet.turn ? sheet.turn.round : undefined;
  return send("POST", "/api/moves",
    { act, cells, value: value === undefined ? null : value, round });
}

// --- joining -------------------------------------------------------------------------

function showJoin() {
  sheet = null;
  drawnText = "";
  document.getElementById("sheet").hidden = true;
  document.getElementById("actions").hidden = true;
  document.getElementById("who").textContent = "";
  const form = document.getElementById("join-form");
  form.hidden = false;
  document.getElementById("initials").focus();
}

async function join(event) {
  event.preventDefault();
  const initials = document.getElementById("initials").value.trim();
  const answer = await api("POST", "/api/players", { initials });
  if (!answer) return;
  if ((answer.status === 200 || answer.status === 201) && answer.body.token) {
    keepToken(answer.body.token);
    document.getElementById("join-form").hidden = true;
    answered({ status: answer.status, body: answer.body.sheet });
    return;
  }
  tell(answer.body.error || say("refused", { status: answer.status }));
}

// --- the map ---------------------------------------------------------------------------

// One cell of the drawing is U units square; the cells are drawn at least MIN_PX CSS pixels
// (a fingertip), at most MAX_PX, filling the width the page gives them.
const U = 100;
const MIN_PX = 34;
const MAX_PX = 84;
// The paper and its ink, as on a printed sheet.
const PAPER = "#fbf8f1";
const LINE = "#8a857d";
const EDGE = "#26231f";
const TEXT = "#1b1a18";
const HAZARD = "#d02c2c";
// The pictures of the kinds of space the titles name (sheet.py's Kind.picture); another
// picture is a plain tinted square.
const PICTURES = {
  sea: drawSea,
  mountain: drawMountain,
  "door frame": drawDoor,
};
// Each discovery's colour, by its letter: dark enough to read on the paper.
const FOUND = ["#1d7a3e", "#8a3fbf", "#b4510b", "#1560b8", "#a3154f", "#5d6b00"];

function foundColour(letter) {
  return FOUND[letter.charCodeAt(0) % FOUND.length];
}

function drawSea(g, kind) {
  el("rect", { x: 0, y: 0, width: U, height: U, fill: "#d5e6f2" }, g);
  el("path", { d: "M22 55 q 14 -14 28 0 t 28 0", fill: "none", stroke: "#6d96b5",
    "stroke-width": 5, "stroke-linecap": "round" }, g);
}

function drawMountain(g) {
  el("polygon", { points: "50,22 80,76 20,76", fill: "#56524c" }, g);
}

function drawDoor(g) {
  el("rect", { x: 12, y: 12, width: U - 24, height: U - 24, fill: "none", stroke: EDGE,
    "stroke-width": 4 }, g);
}

function drawTint(g) {
  el("rect", { x: 0, y: 0, width: U, height: U, fill: "#e6e0ee" }, g);
}

// A cell's token (the letters `pitable score` reads) in parts: what it holds, and its marks.
function parseToken(text, kindLetter) {
  const [base, ...marks] = text.split("/");
  let rest = base;
  if (kindLetter !== "." && rest.startsWith(kindLetter)) rest = rest.slice(kindLetter.length);
  const held = { empty: false, number: null, hazard: false, crossed: false, letter: null };
  if (rest === "" || rest === "_") held.empty = true;
  else if (/^\d+$/.test(rest)) held.number = rest;
  else if (rest === "X") held.hazard = true;
  else if (rest === "x") held.crossed = true;
  else held.letter = rest;
  held.marks = marks.map((m) => {
    const found = /^([A-Za-z]+)(\d*)$/.exec(m) || [m, m, ""];
    return { text: m, letter: found[1], count: found[2] };
  });
  return held;
}

// What a cell holds, in words, for its aria-label.
function heldWords(held) {
  const parts = [];
  if (held.number !== null) parts.push(held.number);
  else if (held.hazard) parts.push(say("hazard"));
  else if (held.crossed) parts.push(say("crossed"));
  else if (held.letter) parts.push(held.letter);
  else parts.push(say("empty"));
  for (const mark of held.marks) {
    if (mark.letter === mark.letter.toUpperCase()) {
      parts.push(say("treasure", { value: mark.count }));
    } else {
      parts.push(say("found", { mark: mark.text }));
    }
  }
  return parts.join(", ");
}

function drawHazard(g, crossed) {
  el("polygon", { points: "50,16 86,78 14,78", fill: crossed ? "#9c968d" : HAZARD }, g);
  el("rect", { x: 46, y: 36, width: 8, height: 24, rx: 3, fill: PAPER }, g);
  el("circle", { cx: 50, cy: 68, r: 4.5, fill: PAPER }, g);
  if (crossed) {
    el("line", { x1: 12, y1: 88, x2: 88, y2: 12, stroke: TEXT, "stroke-width": 7,
      "stroke-linecap": "round" }, g);
  }
}

function text(g, x, y, size, value, attrs) {
  const node = el("text", { x, y, "font-size": size, "text-anchor": "middle",
    "dominant-baseline": "central", fill: TEXT, ...(attrs || {}) }, g);
  node.textContent = value;
  return node;
}

function drawHeld(g, held) {
  if (held.number !== null) {
    text(g, 50, 52, held.number.length > 1 ? 48 : 56, held.number, { "font-weight": "bold" });
  } else if (held.hazard || held.crossed) {
    drawHazard(g, held.crossed);
  } else if (held.letter) {
    // A structure or a boat: its letter, framed so that it is not read as a number.
    el("rect", { x: 22, y: 22, width: 56, height: 56, rx: 10, fill: "none", stroke: TEXT,
      "stroke-width": 4 }, g);
    text(g, 50, 52, 40, held.letter, { "font-weight": "bold" });
  }
  for (const mark of held.marks) {
    if (mark.letter === mark.letter.toUpperCase()) {
      // A treasure: a gold coin with its value, in the top right corner.
      el("circle", { cx: 78, cy: 22, r: 18, fill: "#f2c230", stroke: "#8a6a00",
        "stroke-width": 3 }, g);
      text(g, 78, 23, mark.count.length > 1 ? 20 : 24, mark.count, { "font-weight": "bold" });
    } else {
      // A discovery: its letter in the bottom right corner (its outline is drawn apart).
      text(g, 84, 84, 24, mark.letter, { fill: foundColour(mark.letter), "font-weight": "bold" });
    }
  }
}

// Whether the cell at (r, c) is part of the map (its thick outline goes round those).
function inside(map, r, c) {
  if (r < 0 || c < 0 || r >= map.height || c >= map.width) return false;
  const kind = map.kinds[map.rows[r][c]];
  return Boolean(kind && kind.inside);
}

// The state of a discovery being picked: its act, value, label and size, and the spaces
// tapped so far ("r,c").
let picked = null;

function cellKey(r, c) {
  return `${r},${c}`;
}

// The sheet drawn last, as text: the same sheet again (a refresh that found nothing new) is
// not drawn again, so that a finger on a space never meets a space redrawn under it.
let drawnText = "";

function draw(s) {
  const seen = JSON.stringify([s, words.lang,
    picked && [picked.act, picked.value, ...picked.chosen]]);
  if (seen === drawnText) return;
  drawnText = seen;
  sheet = s;
  // A game over: its sheet stays to be read, and the next game may be joined.
  document.getElementById("join-form").hidden = !s.over;
  document.getElementById("sheet").hidden = false;
  // A finished sheet takes no more moves: its bar keeps only the box's messages.
  document.getElementById("actions").hidden = Boolean(s.over);
  if (picked && !offeredGroups(picked.act, picked.value).length && !picked.chosen.size) {
    picked = null;
  }
  showHeader(s);
  showTurn(s);
  drawMap(s);
  showDeal(s);
  showNews(s);
  showGroups(s);
  showScore(s);
  if (s.table) showTable(s.table);
}

// --- a table's hazard: dealt to this phone on another's sheet, or drawn on this one --------

// The sheet this phone was dealt at a table's hazard roll, its spaces where the hazard may
// go to tap; once drawn, where it went.
function showDeal(s) {
  const deal = s.deal;
  const box = document.getElementById("deal");
  const why = document.getElementById("deal-why");
  box.hidden = !deal || s.over;
  if (box.hidden) return;
  const heading = document.getElementById("deal-say");
  why.hidden = !deal.own;
  why.textContent = deal.own ? say("deal_own_why") : "";
  if (deal.placed) {
    heading.textContent = say("deal_drawn", { initials: deal.owner });
  } else if (!deal.spaces.length) {
    heading.textContent = say("deal_full", { initials: deal.owner });
  } else {
    heading.textContent = deal.own ? say("deal_own")
      : say("deal_other", { initials: deal.owner });
  }
  const svg = document.getElementById("deal-map");
  svg.setAttribute("aria-label", heading.textContent);
  drawMap({ map: deal.map, cells: deal.cells }, {
    svg, frame: document.getElementById("deal-frame"),
    spaces: new Set(deal.spaces.map(([r, c]) => cellKey(r, c))),
    tap: (r, c) => send("POST", "/api/hazard", { cells: [[r, c]], round: deal.round }),
  });
}

// What others (or the box) drew: on this sheet this turn, or for this player when the turn
// before closed.
function showNews(s) {
  const said = [];
  const onMe = s.hazard_on_me;
  if (onMe && onMe.placed && onMe.by !== (s.player && s.player.initials)) {
    const [r, c] = onMe.placed;
    said.push(onMe.by_box ? say("box_drew_on_you", { row: r + 1, column: c + 1 })
      : say("on_me", { initials: onMe.by, row: r + 1, column: c + 1 }));
  } else if (onMe && !onMe.placed) {
    said.push(say("on_me_waiting"));
  }
  const drew = s.box_drew;
  if (drew && drew.for_you) {
    said.push(say("box_drew_for_you", { round: drew.round, initials: drew.for_you }));
  }
  if (drew && drew.on_you) {
    const [r, c] = drew.on_you;
    said.push(say("box_drew_on_you", { row: r + 1, column: c + 1 }));
  }
  const news = document.getElementById("hazard-news");
  news.hidden = !said.length;
  news.textContent = said.join(" · ");
}

// --- the table: who is still writing, the last round, the ranking, paper players' stars ---

let tableShown = null;

function showTable(t) {
  tableShown = t;
  const section = document.getElementById("table");
  section.hidden = !t || (!t.players && !t.ranking);
  if (section.hidden) return;
  const pace = document.getElementById("pace");
  const parts = [];
  // A solo game has no pace to say: its player rolls when they are done.
  const solo = Boolean(sheet && sheet.game && sheet.game.mode === "solo");
  if (!t.ended && t.players && !solo) {
    parts.push(say("pace", { done: t.done, players: t.players }));
    if (t.writing.length) parts.push(say("writing", { initials: t.writing.join(" ") }));
    if (t.last_round) parts.unshift(say("last_round"));
  }
  pace.textContent = parts.join(" · ");
  const ranking = document.getElementById("ranking");
  const ranked = Boolean(t.ended && t.ranking);
  ranking.hidden = !ranked;
  document.getElementById("ranking-title").hidden = !ranked;
  ranking.replaceChildren(...(ranked ? t.ranking : []).map((p, i) => {
    const li = document.createElement("li");
    if (p.place === 1) li.className = "first";
    let line = say(p.shared ? "ranked_shared" : "ranked",
      { place: p.place, initials: p.initials, total: p.total });
    if (t.tie_name && p.tie !== null && p.tie !== undefined) line += ` (${t.tie_name} ${p.tie})`;
    if (p.bot) line += ` ${say("bot_player")}`;
    if (p.paper) line += ` ${say("paper_player")}`;
    li.textContent = line;
    li.dataset.initials = p.initials;
    li.dataset.total = String(p.total);
    li.dataset.place = String(p.place);
    return li;
  }));
  document.getElementById("paper").hidden = !t.ended;
  if (ranked) showFinished(t);
  document.getElementById("finished").hidden = !ranked;
  const tieLabel = document.getElementById("paper-tie-label");
  tieLabel.hidden = !t.tie_name;
  document.getElementById("paper-tie-name").textContent = t.tie_name || "";
  document.getElementById("rival").hidden = Boolean(t.ended) || !sheet || Boolean(sheet.over);
}

// At the end, every finished sheet of the table, each under its player's initials and stars,
// read from the box once for each ranking.
let finishedFor = null;

async function showFinished(t) {
  const key = JSON.stringify(t.ranking);
  if (key === finishedFor) return;
  finishedFor = key;
  const answer = await api("GET", `/api/sheets?lang=${encodeURIComponent(words.lang)}`);
  if (!answer || answer.status !== 200) {
    finishedFor = null;  // asked again with the next change of the table
    return;
  }
  const box = document.getElementById("finished-sheets");
  box.replaceChildren(...answer.body.sheets.map((s) => {
    const figure = document.createElement("figure");
    figure.className = "finished";
    figure.dataset.initials = s.player.initials;
    const caption = document.createElement("figcaption");
    caption.textContent = `${s.player.initials} · ${say("total")} ${s.score.total}`;
    const frame = document.createElement("div");
    frame.className = "finished-frame";
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", caption.textContent);
    frame.append(svg);
    figure.append(caption, frame);
    drawMap(s, { svg, frame, spaces: new Set(), tap: () => {} });
    return figure;
  }));
}

async function addPaperScore(event) {
  event.preventDefault();
  const initials = document.getElementById("paper-initials").value.trim();
  const total = Number(document.getElementById("paper-total").value);
  const tieText = document.getElementById("paper-tie").value;
  const body = { initials, total };
  if (tieText !== "" && tableShown && tableShown.tie_name) body.tie = Number(tieText);
  const answer = await api("POST", "/api/scores", body);
  if (!answer) return;
  if (answer.status === 200) {
    showTable(answer.body.table);
    tell(say("score_added", { initials: answer.body.initials }));
    document.getElementById("paper").reset();
    return;
  }
  tell(answer.body.error || say("refused", { status: answer.status }));
}

async function addRival() {
  const strength = document.getElementById("rival-strength").value;
  const answer = await api("POST", "/api/box-players", { strength });
  if (!answer) return;
  if (answer.status === 201) {
    showTable(answer.body.table);
    tell(say("rival_added", { initials: answer.body.initials }));
    return;
  }
  tell(answer.body.error || say("refused", { status: answer.status }));
}

// A typed event of the box: the table's pace or ranking changed, or a sheet did (this one,
// when another drew a hazard on it).
function typed(type, data) {
  if (type === "table") {
    // The tie-break's name is the page's own, in its own words (the event has none).
    if (sheet) showTable({ ...data, tie_name: tableShown ? tableShown.tie_name : null });
    // The game ended: the sheet is read again, finished.
    if (data.ended && token && sheet && !sheet.over) load();
  } else if (type === "sheet" && token && sheet && sheet.player
      && data.initials === sheet.player.initials && data.hazard) {
    load();
  }
}

// The map of sheet s in the page's map frame; or, with where ({svg, frame, spaces, tap}), in
// another frame, where only the spaces named ("r,c") are tapped, each handed to where.tap.
function drawMap(s, where) {
  const map = s.map;
  const svg = where ? where.svg : document.getElementById("map");
  const frame = where ? where.frame : document.getElementById("map-frame");
  const picking = where ? null : picked;
  const clouds = new Set((map.clouds || []).map(([r, c]) => cellKey(r, c)));
  const starts = new Set((map.starts || []).map(([r, c]) => cellKey(r, c)));
  const top = (map.clouds || []).some(([r]) => r === 0) ? 0.5 * U : 0;
  const width = map.width * U;
  const height = top + map.height * U;
  const pad = 10;
  const room = ((frame.clientWidth || 360) * U) / (width + 2 * pad);
  const px = Math.max(MIN_PX, Math.min(MAX_PX, Math.floor(room)));
  svg.setAttribute("viewBox", `${-pad} ${-pad} ${width + 2 * pad} ${height + 2 * pad}`);
  svg.setAttribute("width", String(Math.floor((px * (width + 2 * pad)) / U)));
  svg.setAttribute("height", String(Math.floor((px * (height + 2 * pad)) / U)));
  svg.replaceChildren();
  // The paper the map is printed on.
  el("rect", { x: -pad, y: -pad, width: width + 2 * pad, height: height + 2 * pad, rx: pad,
    fill: PAPER }, svg);
  const choices = where ? {} : s.choices || {};
  const candidates = picking ? groupCells(picking.act, picking.value) : new Set();
  const foundEdges = [];
  const focused = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.cell : null;
  let refocus = null;
  for (let r = 0; r < map.height; r += 1) {
    for (let c = 0; c < map.width; c += 1) {
      const letter = map.rows[r][c];
      const kind = map.kinds[letter] || { picture: "", inside: false };
      const tokenText = (s.cells[r] || [])[c] || "#";
      if (tokenText === "#" || (!kind.inside && !kind.picture)) continue;
      const key = cellKey(r, c);
      const held = parseToken(tokenText, letter);
      const g = el("g", { class: "cell", transform: `translate(${c * U},${top + r * U})`,
        "data-cell": key, "data-token": tokenText }, svg);
      el("rect", { class: "ground", x: 0, y: 0, width: U, height: U, fill: PAPER }, g);
      if (kind.picture) (PICTURES[kind.picture] || drawTint)(g, kind);
      el("rect", { class: "grid", x: 0, y: 0, width: U, height: U, fill: "none",
        stroke: LINE, "stroke-width": kind.inside ? 2.5 : 1.5,
        "stroke-dasharray": kind.inside ? "none" : "3 7" }, g);
      if (starts.has(key) && held.empty) {
        el("path", { d: "M6 6 h20 l-20 20 z", fill: "#c9c1b3" }, g);
      }
      drawHeld(g, held);
      for (const mark of held.marks) {
        if (mark.letter !== mark.letter.toUpperCase()) foundEdges.push([r, c, mark.text]);
      }
      if (clouds.has(key)) drawCloud(svg, c * U, top + r * U);
      const offered = choices[key];
      const label = say("cell_is", { row: r + 1, column: c + 1, what: heldWords(held) });
      g.setAttribute("aria-label", label);
      el("title", {}, g).textContent = label;
      el("rect", { class: "ring", x: 5, y: 5, width: U - 10, height: U - 10, rx: 8,
        fill: "none" }, g);
      const tappable = where ? where.spaces.has(key)
        : picking ? kind.inside : Boolean(offered && offered.length);
      if (tappable) {
        g.setAttribute("role", "button");
        g.setAttribute("tabindex", "0");
        g.classList.add(picking ? "pickable" : "can");
        if (picking && candidates.has(key)) g.classList.add("may");
        if (picking && picking.chosen.has(key)) {
          g.classList.add("picked");
          g.setAttribute("aria-pressed", "true");
        } else if (picking) {
          g.setAttribute("aria-pressed", "false");
        }
        const tap = where ? where.tap : tapped;
        g.addEventListener("click", () => tap(r, c));
        g.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            tap(r, c);
          }
        });
        if (key === focused) refocus = g;
      } else {
        g.setAttribute("role", "img");
      }
    }
  }
  drawOutline(svg, map, top);
  drawFound(svg, foundEdges, top);
  if (refocus) refocus.focus();
}

function drawCloud(svg, x, y) {
  const g = el("g", { class: "cloud", "aria-hidden": "true" }, svg);
  const base = y - 6;
  for (const [dx, dy, r] of [[28, -12, 14], [50, -20, 18], [72, -12, 14]]) {
    el("circle", { cx: x + dx, cy: base + dy, r, fill: PAPER, stroke: LINE, "stroke-width": 3 }, g);
  }
  el("rect", { x: x + 14, y: base - 12, width: 72, height: 12, fill: PAPER }, g);
}

// The map's thick outline: each side of an inside cell that an outside one (or the edge)
// borders.
function drawOutline(svg, map, top) {
  const parts = [];
  for (let r = 0; r < map.height; r += 1) {
    for (let c = 0; c < map.width; c += 1) {
      if (!inside(map, r, c)) continue;
      const x = c * U, y = top + r * U;
      if (!inside(map, r - 1, c)) parts.push(`M${x} ${y}h${U}`);
      if (!inside(map, r + 1, c)) parts.push(`M${x} ${y + U}h${U}`);
      if (!inside(map, r, c - 1)) parts.push(`M${x} ${y}v${U}`);
      if (!inside(map, r, c + 1)) parts.push(`M${x + U} ${y}v${U}`);
    }
  }
  if (parts.length) {
    el("path", { d: parts.join(""), fill: "none", stroke: EDGE, "stroke-width": 7,
      "stroke-linecap": "square", "pointer-events": "none" }, svg);
  }
}

// Each discovery's outline, inside its spaces, in its colour.
function drawFound(svg, edges, top) {
  const at = new Map(edges.map(([r, c, mark]) => [cellKey(r, c), mark]));
  const inset = 9;
  const byMark = new Map();
  for (const [r, c, mark] of edges) {
    const x = c * U, y = top + r * U;
    const parts = byMark.get(mark) || [];
    const same = (rr, cc) => at.get(cellKey(rr, cc)) === mark;
    if (!same(r - 1, c)) parts.push(`M${x + inset} ${y + inset}H${x + U - inset}`);
    if (!same(r + 1, c)) parts.push(`M${x + inset} ${y + U - inset}H${x + U - inset}`);
    if (!same(r, c - 1)) parts.push(`M${x + inset} ${y + inset}V${y + U - inset}`);
    if (!same(r, c + 1)) parts.push(`M${x + U - inset} ${y + inset}V${y + U - inset}`);
    byMark.set(mark, parts);
  }
  for (const [mark, parts] of byMark) {
    el("path", { d: parts.join(""), fill: "none", stroke: foundColour(mark), "stroke-width": 6,
      "stroke-linecap": "round", "pointer-events": "none", class: "found" }, svg);
  }
}

// --- moves -----------------------------------------------------------------------------

function tapped(r, c) {
  if (busy || !sheet) return;
  const key = cellKey(r, c);
  if (picked) {
    if (picked.chosen.has(key)) picked.chosen.delete(key);
    else picked.chosen.add(key);
    if (picked.chosen.size >= picked.size) {
      const cells = [...picked.chosen].map((k) => k.split(",").map(Number));
      const { act, value } = picked;
      picked = null;
      move(act, cells, value);
      return;
    }
    draw(sheet);
    return;
  }
  const offered = (sheet.choices || {})[key];
  if (!offered || !offered.length) return;
  openChooser(r, c, offered);
}

function openChooser(r, c, offered) {
  const dialog = document.getElementById("chooser");
  document.getElementById("chooser-title").textContent = say("choose", { row: r + 1, column: c + 1 });
  const list = document.getElementById("choices");
  list.classList.toggle("many", offered.length > 4);
  list.replaceChildren(...offered.map((choice) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    button.dataset.act = choice.act;
    button.dataset.value = choice.value === null || choice.value === undefined ? "" : String(choice.value);
    button.textContent = choice.label;
    button.addEventListener("click", () => {
      dialog.close();
      move(choice.act, [[r, c]], choice.value);
    });
    return button;
  }));
  dialog.dataset.cell = cellKey(r, c);
  dialog.showModal();
  const first = list.querySelector("button");
  if (first) first.focus();
}

function sameValue(a, b) {
  return String(a) === String(b);
}

function offeredGroups(act, value) {
  return ((sheet && sheet.groups) || []).filter((g) => g.act === act && sameValue(g.value, value));
}

// The spaces of every group of that kind the box offers.
function groupCells(act, value) {
  const cells = new Set();
  for (const group of offeredGroups(act, value)) {
    for (const [r, c] of group.cells) cells.add(cellKey(r, c));
  }
  return cells;
}

// A button for each kind of group the box offers (a jungle, a town...): tapped, the player
// taps the group's spaces; once there are as many as the group has, the move is sent (the
// box checks it: its list need not hold every group the rules allow).
function showGroups(s) {
  const kinds = [];
  const seen = new Set();
  for (const group of s.groups || []) {
    const key = `${group.act}\u0000${group.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kinds.push(group);
  }
  const box = document.getElementById("groups");
  box.replaceChildren(...kinds.map((group) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "group";
    button.dataset.groupAct = group.act;
    button.dataset.groupValue = group.value === null || group.value === undefined ? "" : String(group.value);
    button.textContent = group.label;
    const active = picked && picked.act === group.act && sameValue(picked.value, group.value);
    button.setAttribute("aria-pressed", active ? "true" : "false");
    button.addEventListener("click", () => {
      if (active) {
        picked = null;
      } else {
        picked = { act: group.act, value: group.value, label: group.label,
          size: group.cells.length, chosen: new Set() };
      }
      tell("");
      draw(sheet);
    });
    return button;
  }));
  const hint = document.getElementById("picking");
  hint.hidden = !picked;
  hint.textContent = picked ? say("pick_spaces", { label: picked.label,
    chosen: picked.chosen.size, size: picked.size }) : "";
}

function takeBack() {
  picked = null;
  send("DELETE", "/api/moves/last");
}

function done() {
  const warnings = (sheet && sheet.turn && sheet.turn.warnings) || [];
  if (warnings.length) {
    document.getElementById("warnings").replaceChildren(...warnings.map((w) => {
      const li = document.createElement("li");
      li.textContent = w;
      return li;
    }));
    const dialog = document.getElementById("confirm");
    dialog.showModal();
    document.getElementById("keep-playing").focus();
    return;
  }
  finish();
}

function finish() {
  picked = null;
  // The turn it is said for: the box refuses it if the next roll came first.
  send("POST", "/api/done", sheet && sheet.turn ? { round: sheet.turn.round } : undefined);
}

// --- the turn, the game and the score --------------------------------------------------

function showHeader(s) {
  const game = s.game || {};
  document.getElementById("title").textContent = game.name || "pitable";
  const parts = [say(game.mode === "solo" ? "solo_game" : "table_game")];
  if (game.round) {
    parts.push(game.rounds ? say("round_of", { round: game.round, limit: game.rounds })
      : say("round", { round: game.round }));
  }
  document.getElementById("game").textContent =
    parts.map((part) => part.replace(/ /g, "\u00a0")).join(" · ");
  document.getElementById("who").textContent = (s.player && s.player.initials) || "";
}

// The green die's special face names its effect; the box's snapshot says which it is.
let greenEffect = null;

function showTurn(s) {
  const turn = s.turn;
  const faces = document.getElementById("faces");
  const headline = document.getElementById("headline");
  const lines = document.getElementById("lines");
  const section = document.getElementById("turn");
  section.classList.toggle("hazard", Boolean(turn && turn.hazard));
  if (!turn) {
    faces.replaceChildren();
    headline.textContent = s.over ? say("game_over") : say("first_roll");
    lines.replaceChildren();
  } else {
    faces.replaceChildren(...DICE.map((die, i) => {
      const figure = document.createElement("figure");
      figure.className = "die";
      figure.dataset.die = die;
      const face = turn.faces[i];
      const value = face === "*" ? "*" : Number(face);
      figure.dataset.face = String(face);
      figure.appendChild(dieSvg(die, value, { green: greenEffect }));
      return figure;
    }));
    faces.setAttribute("aria-label", say("the_dice"));
    headline.textContent = turn.headline || "";
    const said = [...(turn.lines || [])];
    if (s.over) said.unshift(say("game_over"));
    else if (turn.done) said.unshift(say("turn_done"));
    lines.replaceChildren(...said.map((line) => {
      const p = document.createElement("p");
      p.textContent = line;
      return p;
    }));
  }
  const moves = document.getElementById("moves");
  const made = (turn && turn.moves) || [];
  moves.replaceChildren(...(made.length ? made : [null]).map((m) => {
    const li = document.createElement("li");
    if (!m) {
      li.className = "none";
      li.textContent = say("no_move");
    } else {
      const where = m.cells.map(([r, c]) => say("cell", { row: r + 1, column: c + 1 }));
      li.textContent = `${m.label} · ${where.join("; ")}`;
    }
    return li;
  }));
  const open = Boolean(turn) && !turn.done && !s.over;
  document.getElementById("take-back").disabled = !open || made.length === 0;
  document.getElementById("done").disabled = !open;
}

function showScore(s) {
  const score = s.score || { components: [], total: 0 };
  const rows = score.components.map(([name, stars]) => {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = name;
    const td = document.createElement("td");
    td.textContent = String(stars);
    tr.append(th, td);
    return tr;
  });
  document.getElementById("components").replaceChildren(...rows);
  document.getElementById("score-total").textContent = String(score.total);
  document.getElementById("level").textContent =
    s.over && score.level ? say("level", { result: score.level }) : "";
  document.getElementById("play").classList.toggle("over", Boolean(s.over));
  document.getElementById("after").hidden = !s.over;
}

// A finished sheet on the box's printer (the box says when it has none, or printed it
// a moment ago).
async function printSheet() {
  const answer = await api("POST", "/api/print");
  if (!answer) return;
  tell(answer.status === 202 ? say("printing")
    : answer.body.error || say("refused", { status: answer.status }));
}

// The sheet as `pitable score --sheet` reads it, saved by the browser: fetched with the
// token in its header (never in a link), then handed over as a file.
async function exportSheet() {
  const response = await fetch("/api/sheet.txt", {
    headers: { "X-Pitable-Player": token, "X-Pitable-Lang": words.lang }, cache: "no-store",
  }).catch(() => null);
  if (!response || !response.ok) {
    tell(say("no_answer"));
    return;
  }
  const disposition = response.headers.get("Content-Disposition") || "";
  const named = /filename\*=UTF-8''([^;]+)/.exec(disposition);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = named ? decodeURIComponent(named[1]) : "pitable-sheet.txt";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// --- the box's events ------------------------------------------------------------------

const shown = { run: null, seq: 0, turn: null };
let lastLink = null;

function linkState(live, why) {
  lastLink = [live, why];
  const link = document.getElementById("link");
  link.className = `link ${live ? "live" : "lost"}`;
  link.dataset.word = live ? "live" : "reconnecting";
  delete link.dataset.wordTitle;
  link.textContent = say(link.dataset.word);
  if (live) link.title = say("connected");
  else if (!why) link.title = say("not_connected");
  else if (typeof why === "string") link.title = why;
  else link.title = say(why.key, why.fields);
}

// A new snapshot of the box: a new roll (or a new game) changes the sheet's turn, so the
// sheet is asked for again once the dice have settled.
function snapshot(s) {
  const run = s.run === undefined ? null : s.run;
  if (run === shown.run && s.seq <= shown.seq) return;
  shown.run = run;
  shown.seq = s.seq;
  document.getElementById("play").dataset.seq = String(s.seq);
  if (s.options && s.options.green) greenEffect = s.options.green;
  followLanguage(s.lang);
  // The sheet is read again for a new roll, a new game or its end: not for what else the
  // box says meanwhile (who is still writing, the sheet on the TV), which would have every
  // phone at the table read its sheet each time a player taps Done.
  const turnKey = JSON.stringify([run, s.title, s.map, s.mode, s.round, s.result]);
  if (!s.rolling && token && turnKey !== shown.turn) {
    shown.turn = turnKey;
    load();
  }
}

function loadState() {
  fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then((s) => {
    if (s.seq) snapshot(s);
  }).catch(() => { /* the stream brings it */ });
}

function start() {
  token = storedToken();
  document.getElementById("join-form").addEventListener("submit", join);
  document.getElementById("take-back").addEventListener("click", takeBack);
  document.getElementById("done").addEventListener("click", done);
  document.getElementById("print").addEventListener("click", printSheet);
  document.getElementById("export").addEventListener("click", exportSheet);
  document.getElementById("paper").addEventListener("submit", addPaperScore);
  document.getElementById("add-rival").addEventListener("click", addRival);
  document.getElementById("done-anyway").addEventListener("click", () => {
    document.getElementById("confirm").close();
    finish();
  });
  document.getElementById("keep-playing").addEventListener("click", () => {
    document.getElementById("confirm").close();
  });
  document.getElementById("chooser-cancel").addEventListener("click", () => {
    document.getElementById("chooser").close();
  });
  document.getElementById("chooser").addEventListener("close", () => {
    const cell = document.querySelector(`[data-cell="${document.getElementById("chooser").dataset.cell}"]`);
    if (cell) cell.focus();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && token) load();
  });
  // The cells' size follows the width the page gives the map.
  let resized = null;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(() => { if (sheet) drawMap(sheet); }, 150);
  });
  load();
  loadState();
  follow({ event: snapshot, link: linkState, open: () => {}, typed });
}

document.addEventListener("DOMContentLoaded", start);

// The table's page: draws the box's latest snapshot and each one the box sends after it.
// Plain JavaScript, no framework and no build step: fetch for the live events (read as
// Server-Sent Events), the state and the PIN-guarded actions, SVG drawn from the snapshot.
"use strict";

// The page's words: English as written here until the box's language is known, then that
// language's, from /api/words/<lang> (words.py), fetched again whenever the box changes its
// language. Fields in braces are filled in by say().
let words = {
  lang: "en",
  words: {
    connecting: "connecting", connection: "connection to the box", live: "live",
    reconnecting: "reconnecting", connected: "connected to the box",
    not_connected: "not connected to the box", answered: "the box answered {status}",
    ended: "the box ended the stream", unreachable: "the box cannot be reached",
    no_answer: "the box did not answer: try again", refused: "refused ({status})",
    the_dice: "the dice", no_roll: "no roll yet", special: "special", hazard: "hazard",
    die_face: "{die}: {face}", rolling: "Rolling...", last_rolls: "Last rolls",
    roll_from_here: "Roll from here", game: "Game", mode: "Mode", table: "table",
    solo: "solo", new_game: "New game", solo_game: "solo game", table_game: "table game",
    map: "map {map}", round_of: "round {round} of {limit}", round: "round {round}",
    dangers_of: "dangers {hazards} of {limit}", dangers: "dangers {hazards}",
    level: "level: {result}", play_here: "Play on this phone",
  },
  dice: { green: "green", purple: "purple", red: "red" },
  green: {},
  penny: { face: "1-15", words: "from 1 to 15" },
  titles: null,
};
// The language asked for last, so that a change asked twice is fetched once.
let wordsAsked = "en";

function say(key, fields) {
  let text = words.words[key] || key;
  for (const [name, value] of Object.entries(fields || {})) {
    text = text.split(`{${name}}`).join(String(value));
  }
  return text;
}

// The words written in the page itself: data-word (its text), data-word-title (its title)
// and data-word-label (its aria-label) name their key.
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
  if (words.titles) showTitles(words.titles);
  if (lastLink) linkState(...lastLink);
}

function followLanguage(lang) {
  if (!lang || lang === wordsAsked) return;
  wordsAsked = lang;
  fetch(`/api/words/${encodeURIComponent(lang)}`).then((r) => r.json()).then((w) => {
    if (w.lang !== wordsAsked) return;  // the box changed again meanwhile
    words = w;
    showWords();
    if (lastShown) render(lastShown, true);
  }).catch(() => { wordsAsked = words.lang; /* asked again with the next snapshot */ });
}

// 1 2 3 ... 15 reads better as 1-15.
function numbersText(numbers) {
  if (!numbers || numbers.length === 0) return "";
  const run = numbers.every((n, i) => i === 0 || n === numbers[i - 1] + 1);
  if (run && numbers.length > 5) return `${numbers[0]}-${numbers[numbers.length - 1]}`;
  return numbers.join(" ");
}

function gameText(s) {
  const parts = [say(s.mode === "solo" ? "solo_game" : "table_game")];
  if (s.map) parts.push(say("map", { map: s.map }));
  if (s.round !== null && s.round !== undefined) {
    parts.push(s.round_limit ? say("round_of", { round: s.round, limit: s.round_limit })
      : say("round", { round: s.round }));
  }
  if (s.hazards !== null && s.hazards !== undefined) {
    parts.push(s.hazard_limit ? say("dangers_of", { hazards: s.hazards, limit: s.hazard_limit })
      : say("dangers", { hazards: s.hazards }));
  }
  if (s.result) parts.push(say("level", { result: s.result }));
  // A line that wraps does so between parts, never inside "round 3 of 12".
  return parts.map((part) => part.replace(/ /g, "\u00a0")).join(" · ");
}

let titlesShown = false;

// The titles in the new-game list, by their names in the box's language: the list is made
// once, then its names follow the language, the one chosen staying chosen.
function showTitles(titles, current) {
  if (!titles) return;
  const select = document.getElementById("new-title");
  if (titlesShown) {
    for (const t of titles) {
      const option = select.querySelector(`option[value="${t.key}"]`);
      if (option) option.textContent = t.name;
    }
    return;
  }
  for (const t of titles) {
    const option = document.createElement("option");
    option.value = t.key;
    option.textContent = t.name;
    option.selected = t.key === current;
    select.appendChild(option);
  }
  titlesShown = true;
}

// Which snapshot is shown: its box's run (new at each start of the box) and its number.
// A restarted box counts from 1 again, so numbers are compared only within one run.
const shown = { run: null, seq: 0 };
// The snapshot shown last: drawn again in the new words when the language changes.
let lastShown = null;

function render(s, again) {
  const run = s.run === undefined ? null : s.run;
  if (!again && run === shown.run && s.seq < shown.seq) return;  // an older event of this run
  lastShown = s;
  followLanguage(s.lang);
  shown.run = run;
  shown.seq = s.seq;
  const table = document.getElementById("table");
  table.dataset.seq = String(s.seq);
  table.dataset.run = run === null ? "" : String(run);
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
  const lines = s.rolling ? [say("rolling")] : (s.words.length ? s.words : [s.message || ""]);
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

// The link's state; ``why`` (when it is lost) is a word's key with its fields, or a text the
// box sent (in its own language).
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

function loadTitles() {
  if (titlesShown) return;
  fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then((s) => {
    showTitles(s.titles, s.title);
    if (s.seq) render(s);
  }).catch(() => { /* the stream brings the game; the titles come on its next opening */ });
}

async function act(path, body) {
  const answer = document.getElementById("answer");
  const pin = document.getElementById("pin").value.trim();
  try {
    sessionStorage.setItem("pitable-pin", pin);
  } catch (e) { /* private mode: the PIN is typed again next time */ }
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "X-Pitable-Pin": pin, "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
    });
  } catch (e) {
    answer.textContent = say("no_answer");
    return;
  }
  let said = {};
  try { said = await response.json(); } catch (e) { said = {}; }
  // The server words a refusal itself (the tries left, the seconds to wait): shown as sent.
  answer.textContent = response.ok ? "" : (said.error || say("refused", { status: response.status }));
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
  loadTitles();
  follow({ event: render, link: linkState, open: loadTitles });
}

document.addEventListener("DOMContentLoaded", start);

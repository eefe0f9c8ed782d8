// The box's live events, as both pages read them (index.html's app.js, play.html's
// play.js): follow(hooks) reads /api/events for ever, calling hooks.event(snapshot) for each
// snapshot (and hooks.typed(type, data), where given, for each typed event), hooks.link(live, why) when the link is made or lost (why: a word's key with its
// fields, or a text the box sent), and hooks.open() each time a stream opens.
"use strict";

// The live events. EventSource gives up for good on an answer that is not 200 (a full
// room's 503, a proxy's 502), and the page would say "reconnecting" forever; so the page
// reads the stream with fetch and opens it again itself, whatever ended it, after a wait:
// the server's Retry-After when it gave one, else 1 s doubling to 30 s, each lengthened by
// up to half at random so that a room of phones does not come back in step.
const RETRY_FIRST_MS = 1000;
const RETRY_MOST_MS = 30000;
// Nothing at all (not even the box's keep-alive, every 15 s) for this long: the
// connection died unseen (a phone that changed networks), so it is dropped and opened again.
const SILENT_MS = 45000;
let retryMs = RETRY_FIRST_MS;

function delivered(block, hooks) {
  const data = [];
  let type = "message";
  for (const line of block.split("\n")) {
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    if (line.startsWith("event:")) type = line.slice(6).trim();
  }
  if (data.length === 0) return;  // a keep-alive comment, or the retry field
  retryMs = RETRY_FIRST_MS;  // this stream delivers: a later loss starts the waits again
  hooks.link(true);
  // A typed event ("sheet": a player's sheet changed) is for the sheets' watchers, not a
  // snapshot: handed to hooks.typed(type, data) where a page watches them.
  if (type !== "message") {
    if (hooks.typed) hooks.typed(type, JSON.parse(data.join("\n")));
    return;
  }
  hooks.event(JSON.parse(data.join("\n")));
}

// Reads one stream until it ends; resolves to the wait the server asked for, in ms (0: none).
async function listen(hooks) {
  const stop = new AbortController();
  let silence = setTimeout(() => stop.abort(), SILENT_MS);
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(() => stop.abort(), SILENT_MS);
  };
  try {
    const response = await fetch("/api/events", {
      headers: { Accept: "text/event-stream" }, cache: "no-store", signal: stop.signal,
    });
    if (!response.ok || !response.body) {
      const seconds = Number(response.headers.get("Retry-After"));
      let said = "";
      try { said = (await response.json()).error || ""; } catch (e) { /* not JSON */ }
      hooks.link(false, said || { key: "answered", fields: { status: response.status } });
      return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
    }
    hooks.link(true);
    hooks.open();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        hooks.link(false, { key: "ended" });
        return 0;
      }
      heard();
      // The box ends its lines with "\n" alone (hub.py's event_text).
      pending += decoder.decode(value, { stream: true });
      let end = pending.indexOf("\n\n");
      while (end >= 0) {
        delivered(pending.slice(0, end), hooks);
        pending = pending.slice(end + 2);
        end = pending.indexOf("\n\n");
      }
    }
  } catch (e) {
    // Refused, dropped or silent: the box is restarting, or the network moved.
    hooks.link(false, { key: "unreachable" });
    return 0;
  } finally {
    clearTimeout(silence);
    stop.abort();
  }
}

async function follow(hooks) {
  for (;;) {
    const told = await listen(hooks);
    const wait = Math.max(told, retryMs) * (1 + Math.random() / 2);
    retryMs = Math.min(retryMs * 2, RETRY_MOST_MS);
    await new Promise((resolve) => { setTimeout(resolve, wait); });
  }
}

/* Arbiter's console: runs a round through the HTTP API and shows the tournament's stream
 * (games, standings, tiebreaks). Needs TID (the tournament id), WHO ({role, subject, name})
 * and ArbiterStandings (standings.js) defined before it. The token is an HttpOnly cookie
 * this script never sees: requests are same-origin, and writes carry the X-Arbiter-Console
 * header the cookie needs (services/api/http.py). Everything shown is set through textContent; nothing is parsed as
 * HTML. Every refusal is shown as the server gives it: "refused RULE (FIELD): message". */
"use strict";
const BASE = "/tournaments/" + encodeURIComponent(TID);
const docs = {};
const boardNotes = {};  // game id -> {text, bad}: the last answer to that board's buttons
// One button per result, in the organiser's notation the API reads (services/api/results.py).
const RESULTS = [
  ["1-0", "1-0", "White wins"], ["½", "½-½", "Draw"], ["0-1", "0-1", "Black wins"],
  ["+-", "+−", "Forfeit: White wins (Black did not play)"],
  ["-+", "−+", "Forfeit: Black wins (White did not play)"],
  ["--", "−−", "Double forfeit: neither played"],
];

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function box(id) { return document.getElementById(id); }

/* --- talking to the API ------------------------------------------------------------------- */

function refusal(status, body) {
  const one = e => "refused " + e.rule + (e.field ? " (" + e.field + ")" : "") + ": " + e.message;
  // An input with several mistakes (an entry list) answers them all in `errors`.
  if (body && Array.isArray(body.errors) && body.errors.length > 1) return body.errors.map(one).join("\n");
  if (body && body.error) return one(body.error);
  return "refused: HTTP " + status;
}

async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { "Accept": "application/json" } };
  if (method !== "GET") {
    init.headers["X-Arbiter-Console"] = "1";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body || {});
  }
  let resp;
  try {
    resp = await fetch(BASE + path, init);
  } catch (err) {
    return { ok: false, status: 0, text: "not sent: " + err.message };
  }
  let data = null;
  try { data = await resp.json(); } catch (err) { data = null; }
  const ok = resp.status >= 200 && resp.status < 300;
  return { ok, status: resp.status, body: data, text: ok ? appended(data) : refusal(resp.status, data) };
}

function appended(body) {
  if (!body) return "done";
  const evs = body.events || [];
  if (body.duplicate) return "already recorded (seq " + body.last_seq + ")";
  if (!evs.length) return "done";
  const seqs = evs.length > 1 ? evs[0].seq + "–" + evs[evs.length - 1].seq : String(evs[0].seq);
  const types = [...new Set(evs.map(e => e.type))].join(", ");
  return "appended " + types + " (seq " + seqs + ")";
}

function logLine(what, res) {
  const li = el("li", null, res.ok ? "ok" : "bad");
  li.appendChild(el("span", new Date().toLocaleTimeString(), "t"));
  li.appendChild(el("span", what + ": " + res.text));
  const log = box("log");
  log.insertBefore(li, log.firstChild);
  while (log.childNodes.length > 50) log.removeChild(log.lastChild);
}

function show(out, res) {
  out.textContent = res.text;
  out.className = "out " + (res.ok ? "ok" : "bad");
}

/* --- the current round -------------------------------------------------------------------- */

function resultText(r) { return r === "1/2-1/2" ? "½–½" : (r || "").replace("-", "–"); }

function playerSpan(p) {
  const s = el("span", null, "pname");
  s.title = p.name || p.player_id;
  if (p.title) s.appendChild(el("span", p.title, "title"));
  s.appendChild(document.createTextNode(p.name || p.player_id));
  if (p.rating !== null && p.rating !== undefined) s.appendChild(el("span", p.rating, "rating"));
  return s;
}

// The stage goes in a write's body, in a read's query (services/api/results.py).
function withStage(body, stage) { return stage && stage !== "main" ? { ...body, stage } : body; }

async function enter(g, round, button, result) {
  const card = button.closest(".bd");
  card.querySelectorAll("button").forEach(b => { b.disabled = true; });
  button.classList.add("pending");
  const path = "/rounds/" + round.round + "/boards/" + g.board + "/result";
  const res = await call("POST", path, withStage({ result }, round.stage));
  boardNotes[g.game_id] = { text: res.ok ? "" : res.text, bad: !res.ok };
  logLine("Board " + g.board + " " + result, res);
  if (!res.ok) renderBoards();  // on success the stream brings the result and re-renders
}

function boardCard(g, round) {
  const card = el("div", null, "bd " + g.status.replace("_", "-"));
  card.dataset.game = g.game_id;
  card.dataset.board = String(g.board);
  card.dataset.status = g.status;
  card.appendChild(el("span", g.board, "no"));
  const players = el("div", null, "players");
  const w = el("div", null, "side white");
  w.appendChild(el("span", null, "dot white"));
  w.appendChild(playerSpan(g.white));
  const b = el("div", null, "side black");
  b.appendChild(el("span", null, "dot black"));
  b.appendChild(playerSpan(g.black));
  players.append(w, b);
  card.appendChild(players);
  const act = el("div", null, "act");
  if (g.status === "ended") {
    const res = el("span", resultText(g.result), "result");
    card.dataset.result = g.result || "";
    act.appendChild(res);
    const how = (g.termination || "").replace(/_/g, " ") + (g.corrected ? " · corrected" : "");
    act.appendChild(el("span", how, "how"));
    const fix = el("button", "Correct…", "fix");
    fix.type = "button";
    fix.addEventListener("click", () => prefillCorrection(round.round, g.board));
    act.appendChild(fix);
  } else {
    for (const [value, label, title] of RESULTS) {
      const btn = el("button", label, "res");
      btn.type = "button";
      btn.title = title;
      btn.dataset.result = value;
      btn.addEventListener("click", () => enter(g, round, btn, value));
      act.appendChild(btn);
    }
  }
  card.appendChild(act);
  const note = boardNotes[g.game_id];
  if (note && note.text) card.appendChild(el("p", note.text, "out " + (note.bad ? "bad" : "ok")));
  return card;
}

function renderBoards() {
  const g = docs.games && docs.games.data;
  const label = box("round-label");
  const boards = box("boards");
  if (!g || !g.round) {
    label.textContent = "";
    boards.replaceChildren(el("p", "No round paired yet: pair round 1.", "empty"));
    box("byes").replaceChildren();
    box("whole").hidden = true;
    return;
  }
  const r = g.round;
  document.body.dataset.round = String(r.round);
  label.textContent = (r.stage !== "main" ? r.stage + " · " : "") + "Round " + r.round + " · " +
    r.ended + "/" + r.games + " finished";
  box("sec-round").querySelector("h2").textContent =
    (r.stage !== "main" ? r.stage + " · " : "") + "Round " + r.round;
  boards.replaceChildren(...g.pairings.map(p => boardCard(p, r)));
  if (!g.pairings.length) boards.replaceChildren(el("p", "No games in this round.", "empty"));
  box("byes").replaceChildren(...g.byes.map(b => {
    const p = el("p", null, "bye");
    p.appendChild(el("span", "Bye", "tag"));
    p.appendChild(playerSpan(b.player));
    p.appendChild(el("span", b.kind.replace(/_/g, " "), "how"));
    return p;
  }));
  box("whole").hidden = g.pairings.every(p => p.status === "ended");
  fillRounds(r.stage === "main" ? r.round : 0);
  if (g.pairings.some(p => p.status === "ended")) nameEndings(r);
}

/* The finished boards' endings in words ("result entered by the arbiter", "loss on time"):
   the results route's `ending` (services/commands/results.py), not the stored termination. */
async function nameEndings(r) {
  const q = r.stage && r.stage !== "main" ? "?stage=" + encodeURIComponent(r.stage) : "";
  const res = await call("GET", "/rounds/" + r.round + q);
  if (!res.ok || !res.body || !Array.isArray(res.body.boards)) return;
  for (const b of res.body.boards) {
    const how = box("boards").querySelector('.bd[data-board="' + b.board + '"] .how');
    if (how && b.ending) how.textContent = b.ending + (b.corrected ? " · corrected" : "");
  }
}

/* --- standings and flags ------------------------------------------------------------------ */

/* The standings table (standings.js, shared with the live page), the console's narrower
 * one; the correction flags in names. */
function renderStandings() {
  const st = docs.standings;
  if (!st) return;
  ArbiterStandings.render(box("standings"), box("legend"), st, docs.tiebreaks, { compact: true });
  box("flags").replaceChildren(...ArbiterStandings.flags(st.data, el("p", "None.", "empty")));
  fillPlayers(st.data.rows);
}

function fillPlayers(rows) {
  for (const sel of document.querySelectorAll("select.players")) {
    const keep = sel.value;
    const opts = [...rows].sort((a, b) => a.name.localeCompare(b.name)).map(r => {
      const o = el("option", r.name + (r.rating ? " (" + r.rating + ")" : "") +
        (r.withdrawn ? " — withdrawn" : ""));
      o.value = r.player_id;
      return o;
    });
    sel.replaceChildren(...opts);
    if (keep) sel.value = keep;
  }
}

/* --- correction: any round's board -------------------------------------------------------- */

/* The main stage's rounds (GET …/rounds); a correction addresses a board of one of them. */
let knownRounds = [];
async function fillRounds(current) {
  if (knownRounds.length && knownRounds[knownRounds.length - 1] >= current) return;
  const res = await call("GET", "/rounds");
  let want = res.ok && res.body && Array.isArray(res.body.rounds) ? res.body.rounds : [];
  if (!want.length) for (let i = 1; i <= current; i++) want.push(i);
  if (want.join() === knownRounds.join()) return;
  knownRounds = want;
  const sel = box("correct").elements.round;
  const keep = sel.value;
  sel.replaceChildren(...want.map(n => { const o = el("option", "Round " + n); o.value = String(n); return o; }));
  sel.value = keep || String(current);
  await fillBoards();
}

async function fillBoards(board) {
  const form = box("correct");
  const n = form.elements.round.value;
  const sel = form.elements.board;
  if (!n) return;
  const res = await call("GET", "/rounds/" + n);
  if (!res.ok) { show(form.querySelector(".out"), res); return; }
  sel.replaceChildren(...res.body.boards.map(b => {
    const o = el("option", b.board + ": " + b.white.name + " – " + b.black.name + " · " +
      (b.result ? resultText(b.result) : "no result"));
    o.value = String(b.board);
    return o;
  }));
  if (board) sel.value = String(board);
}

async function prefillCorrection(round, board) {
  const form = box("correct");
  form.elements.round.value = String(round);
  await fillBoards(board);
  form.scrollIntoView({ block: "center" });
  form.elements.reason.focus();
}

/* --- forms -------------------------------------------------------------------------------- */

function fields(form) {
  const out = {};
  for (const [k, v] of new FormData(form).entries()) {
    const s = String(v).trim();
    if (s === "") continue;
    const input = form.elements[k];
    out[k] = input && input.type === "number" ? Number(s) : s;
  }
  return out;
}

function onSubmit(id, what, send) {
  const form = box(id);
  form.addEventListener("submit", async ev => {
    ev.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    const out = form.querySelector(".out");
    out.textContent = "…";
    out.className = "out";
    try {
      const res = await send(fields(form));
      show(out, res);
      logLine(what, res);
      if (res.ok && form.dataset.keep !== "yes") form.reset();
    } finally {
      button.disabled = false;
    }
  });
}

function playerPath(p) { return "/players/" + encodeURIComponent(p); }

onSubmit("register", "Register", f => call("POST", "/players", f));
onSubmit("withdraw", "Withdraw", f => {
  const body = {};
  if (f.from_round) body.from_round = f.from_round;
  if (f.reason) body.reason = f.reason;
  return call("POST", playerPath(f.player) + "/withdraw", body);
});
onSubmit("bye", "Bye", f => call("POST", playerPath(f.player) + "/bye", { round: f.round, points: f.points }));
onSubmit("correct", "Correction", async f => {
  const res = await call("POST", "/rounds/" + f.round + "/boards/" + f.board + "/correction",
    { result: f.result, reason: f.reason });
  if (res.ok) { fillBoards(f.board); box("correct").elements.reason.value = ""; }
  return res;
});
box("correct").dataset.keep = "yes";
box("correct").elements.round.addEventListener("change", () => fillBoards());
onSubmit("whole", "Round results", f => {
  const r = docs.games && docs.games.data.round;
  if (!r) return Promise.resolve({ ok: false, text: "no round paired yet" });
  return call("POST", "/rounds/" + r.round + "/results", withStage({ results: f.results }, r.stage));
});

box("pair").addEventListener("click", async () => {
  const button = box("pair");
  button.disabled = true;
  const out = box("pair-out");
  out.textContent = "pairing…";
  out.className = "out";
  try {
    const res = await call("POST", "/pair", {});
    if (res.ok && res.body && res.body.round) {
      const b = res.body;
      res.text = (b.appended ? "paired " : "already paired: ") + (b.stage !== "main" ? b.stage + " " : "") +
        "round " + b.round + ", " + b.pairings.length + " board" + (b.pairings.length === 1 ? "" : "s") +
        (b.byes.length ? " and " + b.byes.length + " bye" : "") + (b.round_seq ? " (seq " + b.round_seq + ")" : "");
    }
    show(out, res);
    logLine("Pair", res);
  } finally {
    button.disabled = false;
  }
});

/* --- the stream --------------------------------------------------------------------------- */

function status(text, down) {
  const s = box("status");
  s.textContent = text;
  s.className = down ? "down" : "";
}

function received(name, msg) {
  const old = docs[name];
  if (old && old.as_of_seq >= msg.as_of_seq) return;
  docs[name] = msg;
  document.body.dataset.asOfSeq = String(msg.as_of_seq);
  status("live · as of event " + msg.as_of_seq, false);
  if (name === "games") renderBoards();
  if (name === "standings" || name === "tiebreaks") renderStandings();
}

box("title").textContent = WHO.name || TID;
box("who").textContent = WHO.subject + " · " + WHO.role;
if (WHO.role !== "admin") {
  box("correct-note").textContent = "Corrections are an admin's: the server refuses them from an " +
    WHO.role + " token, and the refusal is shown here.";
}
const source = new EventSource(BASE + "/stream");  // the cookie goes with it (same origin)
for (const name of ["games", "standings", "tiebreaks"]) {
  source.addEventListener(name, ev => received(name, JSON.parse(ev.data)));
}
source.addEventListener("revoked", () => { status("token revoked — reload with a new one", true); source.close(); });
source.onopen = () => status("live" + (docs.games ? " · as of event " + docs.games.as_of_seq : ""), false);
source.onerror = () => status("disconnected — reconnecting…", true);
renderBoards();

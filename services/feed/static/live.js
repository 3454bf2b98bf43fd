/* Arbiter live page: renders the tournament's SSE stream (standings, tiebreaks, playoff,
 * prizes, games). Everything shown is set through textContent; nothing is parsed as HTML.
 * Needs TID (the tournament id), PROJECTIONS (the names of the published projections) and
 * ArbiterBoard (board.js) defined before it. */
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const docs = {};
const MAX_BOARDS = 12; // boards drawn at once (the pairings table lists every game)

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function box(id) { return document.getElementById(id); }

function names() {
  const out = {};
  const g = docs.games && docs.games.data;
  if (g) {
    for (const p of g.pairings) { out[p.white.player_id] = p.white; out[p.black.player_id] = p.black; }
  }
  if (docs.standings) for (const r of docs.standings.data.rows) out[r.player_id] = r;
  return out;
}
function nameOf(pid) { const p = names()[pid]; return p ? p.name : pid; }

function playerCell(p, cls) {
  const td = el("td", null, cls || "name");
  td.title = p.name || p.player_id;
  if (p.title) td.appendChild(el("span", p.title, "title"));
  td.appendChild(document.createTextNode(p.name || p.player_id));
  if (p.rating !== null && p.rating !== undefined) td.appendChild(el("span", p.rating, "rating"));
  return td;
}

function resultText(r) { return r === "1/2-1/2" ? "½–½" : (r || "").replace("-", "–"); }

function fmtClock(ms) {
  if (ms === null || ms === undefined) return "–:––";
  const s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? h + ":" + String(m).padStart(2, "0") + ":" + ss : m + ":" + ss;
}

function moveText(g) {
  const m = g.last_move;
  if (!m) return "";
  if (m.point) return "Move " + m.ply + ": " + (m.colour === "black" ? "B " : "W ") + m.point;
  const n = Math.ceil(m.ply / 2) + (m.colour === "white" ? ". " : "… ");
  return n + (m.san || m.uci || m.point || "");
}

function renderHeader() {
  const g = docs.games && docs.games.data;
  const label = box("round-label");
  if (!g || !g.round) { label.textContent = ""; return; }
  const r = g.round;
  label.textContent = (r.stage !== "main" ? r.stage + " · " : "") + "Round " + r.round +
    " · " + r.ended + "/" + r.games + " finished" + (r.in_progress ? " · " + r.in_progress + " live" : "");
}

function gameCard(g, data) {
  const card = el("div", null, "game " + g.status.replace("_", "-"));
  card.dataset.game = g.game_id;
  card.dataset.status = g.status;
  card.dataset.plies = String(g.plies);
  if (g.fen) card.dataset.fen = g.fen;
  if (g.last_move) card.dataset.lastMove = g.last_move.uci || g.last_move.point || "";
  card.appendChild(el("div", "Board " + g.board, "board-no"));
  const running = g.status === "in_progress" ? g.to_move : null;
  const who = (colour) => {
    const p = g[colour];
    const row = el("div", null, "who " + colour);
    row.appendChild(el("span", null, "dot " + colour));
    const nm = el("span", null, "pname");
    if (p.title) nm.appendChild(el("span", p.title, "title"));
    nm.appendChild(document.createTextNode(p.name));
    if (p.rating !== null && p.rating !== undefined) nm.appendChild(el("span", p.rating, "rating"));
    row.appendChild(nm);
    const clock = el("span", fmtClock(g.clocks[colour + "_ms"]), "clock " + colour);
    if (running === colour) clock.classList.add("running");
    row.appendChild(clock);
    return row;
  };
  card.appendChild(who("black"));
  const area = el("div", null, "area");
  const ev = g.evaluation;
  if (data.engine_event || ev) {
    const bar = el("div", null, "evalbar");
    const w = el("div", null, "w");
    const share = ArbiterBoard.whiteShare(ev ? ev.cp : null, ev ? ev.mate_in : null);
    w.style.height = share.toFixed(1) + "%";
    bar.dataset.cp = ev && ev.cp !== null ? String(ev.cp) : "";
    bar.dataset.mate = ev && ev.mate_in !== null ? String(ev.mate_in) : "";
    bar.title = ev ? ArbiterBoard.evalText(ev.cp, ev.mate_in) : "no evaluation yet";
    bar.appendChild(w);
    area.appendChild(bar);
  }
  if (data.game === "go") {
    const last = g.last_move ? g.last_move.point : null;
    area.appendChild(ArbiterBoard.goBoard(data.board_size, g.stones, last));
  } else {
    area.appendChild(ArbiterBoard.chessBoard(g.fen, g.last_move ? g.last_move.uci : null));
  }
  card.appendChild(area);
  card.appendChild(who("white"));
  const meta = el("div", null, "meta");
  meta.appendChild(el("span", moveText(g) || (g.status === "scheduled" ? "not started" : "no move yet"), "lm"));
  meta.appendChild(el("span", ev ? ArbiterBoard.evalText(ev.cp, ev.mate_in) +
    (ev.depth !== null ? " d" + ev.depth : "") : "", "ev"));
  card.appendChild(meta);
  if (g.status === "ended") {
    card.appendChild(el("div", resultText(g.result) + " · " + (g.termination || "").replace(/_/g, " "),
      "banner"));
  }
  return card;
}

function renderGames() {
  renderHeader();
  const g = docs.games && docs.games.data;
  if (!g) return;
  // Boards: games in progress first, then finished games that were played out, then the
  // games still to start (their start position).
  const live = g.pairings.filter(p => p.status === "in_progress");
  const done = g.pairings.filter(p => p.status === "ended" && p.plies > 0);
  const waiting = g.pairings.filter(p => p.status === "scheduled");
  const shown = live.concat(done, waiting).slice(0, MAX_BOARDS);
  const boards = box("boards");
  boards.replaceChildren(...shown.map(p => gameCard(p, g)));
  if (!shown.length) boards.replaceChildren(el("p", "No game in progress.", "empty"));
  // Pairings and results.
  const table = box("pairings");
  const head = el("tr");
  for (const [h, c] of [["Bd", ""], ["White", "left"], ["Result", ""], ["Black", "left"], ["", "left st"]]) {
    head.appendChild(el("th", h, c));
  }
  table.tHead.replaceChildren(head);
  const rows = g.pairings.map(p => {
    const tr = el("tr");
    tr.dataset.game = p.game_id;
    tr.appendChild(el("td", p.board));
    tr.appendChild(playerCell(p.white, "name left"));
    const res = p.status === "ended" ? resultText(p.result) : (p.status === "in_progress" ? "live" : "–");
    tr.appendChild(el("td", res, "result" + (p.status === "in_progress" ? " live" : "")));
    tr.appendChild(playerCell(p.black, "name left"));
    let st = p.status === "ended" ? (p.termination || "").replace(/_/g, " ") :
      (p.status === "in_progress" ? "move " + Math.ceil(Math.max(p.plies, 1) / 2) : "not started");
    if (p.corrected) st += " (corrected)";
    tr.appendChild(el("td", st, "status left"));
    return tr;
  });
  for (const b of g.byes) {
    const tr = el("tr");
    tr.appendChild(el("td", ""));
    tr.appendChild(playerCell(b.player, "name left"));
    tr.appendChild(el("td", "bye", "result"));
    tr.appendChild(el("td", ""));
    tr.appendChild(el("td", b.kind.replace(/_/g, " "), "status left"));
    rows.push(tr);
  }
  table.tBodies[0].replaceChildren(...rows);
  if (!rows.length) table.tBodies[0].replaceChildren(el("tr"));
}

function renderStandings() {
  const st = docs.standings, tb = docs.tiebreaks;
  if (!st) return;
  const table = box("standings");
  const byPlayer = {};
  let cols = [];
  if (tb) {
    for (const r of tb.data.rows) byPlayer[r.player_id] = r;
    cols = tb.data.columns || [];
  }
  const head = el("tr");
  for (const h of ["#", "Player", "Points", "Played", "W", "D", "L"]) {
    head.appendChild(el("th", h, h === "Player" ? "name" : ""));
  }
  for (const c of cols) {
    const th = el("th", c.label);
    th.title = c.key + " (" + c.source + ")";
    head.appendChild(th);
  }
  head.appendChild(el("th", "Decided by", "why"));
  table.tHead.replaceChildren(head);
  const rows = [];
  for (const r of st.data.rows) {
    const tr = el("tr");
    tr.dataset.player = r.player_id;
    const place = r.unresolved ? r.place + "?" : (r.shared ? r.place + "=" : r.place);
    tr.appendChild(el("td", place));
    tr.appendChild(playerCell(r, "name"));
    tr.appendChild(el("td", r.score.display, "points"));
    tr.appendChild(el("td", r.played));
    tr.appendChild(el("td", r.won));
    tr.appendChild(el("td", r.drawn));
    tr.appendChild(el("td", r.lost));
    const t = byPlayer[r.player_id];
    for (const c of cols) {
      const v = t ? t.values[c.key] : null;
      tr.appendChild(el("td", v ? v.display : ""));
    }
    tr.appendChild(el("td", t ? t.decided_by : "", "why"));
    rows.push(tr);
  }
  table.tBodies[0].replaceChildren(...rows);
  box("flags").replaceChildren(...(st.data.flags || []).map(f => el("p", "⚑ " + f.text, "flag")));
  renderCrosstable();
}

function renderCrosstable() {
  const st = docs.standings;
  const ct = st && st.data.crosstable;
  const table = box("crosstable");
  if (!ct) return;
  const order = {};
  ct.players.forEach((p, i) => { order[p.player_id] = i + 1; });
  const rowsByPid = {};
  for (const r of st.data.rows) rowsByPid[r.player_id] = r;
  const head = el("tr");
  head.appendChild(el("th", "#"));
  head.appendChild(el("th", "Player", "name"));
  for (let i = 1; i <= ct.rounds; i++) head.appendChild(el("th", "R" + i));
  head.appendChild(el("th", "Pts"));
  table.tHead.replaceChildren(head);
  const rows = ct.players.map((p, i) => {
    const tr = el("tr");
    tr.dataset.player = p.player_id;
    tr.appendChild(el("td", i + 1));
    tr.appendChild(el("td", nameOf(p.player_id), "name"));
    const byRound = {};
    for (const e of p.rounds) (byRound[e.round] = byRound[e.round] || []).push(e);
    for (let rnd = 1; rnd <= ct.rounds; rnd++) {
      const es = byRound[rnd] || [];
      const td = el("td", null, "x");
      for (const e of es) {
        const span = el("span");
        if (e.opponent) span.appendChild(document.createTextNode(String(order[e.opponent] || e.opponent)));
        if (e.colour) span.appendChild(el("span", e.colour === "white" ? "w" : "b", "c"));
        span.appendChild(document.createTextNode((e.opponent ? " " : e.kind.replace(/_/g, " ") + " ") + e.display));
        td.appendChild(span);
        td.classList.add(e.outcome);
      }
      tr.appendChild(td);
    }
    const row = rowsByPid[p.player_id];
    tr.appendChild(el("td", row ? row.score.display : "", "points"));
    return tr;
  });
  table.tBodies[0].replaceChildren(...rows);
}

function renderPlayoff() {
  const out = box("playoff");
  const d = docs.playoff && docs.playoff.data;
  if (!d) return;
  if (!d.defined) { out.replaceChildren(el("p", "No playoff for this tournament.", "empty")); return; }
  const parts = [el("p", "Status: " + d.status + (d.kind ? " (" + d.kind + ")" : ""), "note")];
  if (d.tied && d.tied.length) parts.push(el("p", "Tied: " + d.tied.map(nameOf).join(", "), "note"));
  if (d.still_in && d.still_in.length) parts.push(el("p", "Still in: " + d.still_in.map(nameOf).join(", "), "note"));
  const stages = el("div", null, "stages");
  for (const s of d.stages || []) {
    const st = el("div", null, "stage");
    st.appendChild(el("h3", s.name + " · " + s.kind));
    for (const g of s.games || []) {
      const m = el("div", null, "m");
      m.appendChild(el("span", nameOf(g.white) + " – " + nameOf(g.black)));
      m.appendChild(el("span", g.result ? resultText(g.result) : (g.scheduled ? "…" : "to pair")));
      st.appendChild(m);
    }
    const scores = Object.entries(s.scores || {}).map(([p, x]) => nameOf(p) + " " + x.display);
    if (scores.length) st.appendChild(el("p", scores.join(" · "), "note"));
    if (s.advanced && s.advanced.length) st.appendChild(el("p", "→ " + s.advanced.map(nameOf).join(", "), "note"));
    stages.appendChild(st);
  }
  if (stages.childNodes.length) parts.push(stages);
  for (const r of d.required_next || []) parts.push(el("p", "Next: " + r.text, "note"));
  if (d.final_order && d.final_order.length) {
    parts.push(el("p", "Final order: " + d.final_order.map(b => b.map(nameOf).join(" = ")).join(", "), "note"));
  }
  out.replaceChildren(...parts);
}

function renderPrizes() {
  const out = box("prizes");
  const d = docs.prizes && docs.prizes.data;
  if (!d) return;
  if (!d.defined) { out.replaceChildren(el("p", "No prize table.", "empty")); return; }
  if (d.error) { out.replaceChildren(el("p", "Prizes: " + d.error, "note")); return; }
  const parts = [el("p", "Status: " + (d.status || "") + (d.currency ? " · " + d.currency : ""), "note")];
  if (d.lines && d.lines.length) {
    const scroll = el("div", null, "scroll");
    const table = el("table");
    const head = el("tr");
    for (const [h, c] of [["Player", "name"], ["Places", ""], ["Prize", ""], ["Tour pts", ""], ["Note", "why"]]) {
      head.appendChild(el("th", h, c));
    }
    table.appendChild(el("thead")).appendChild(head);
    const body = table.appendChild(el("tbody"));
    for (const ln of d.lines) {
      const tr = el("tr");
      tr.appendChild(el("td", nameOf(ln.player_id), "name"));
      tr.appendChild(el("td", ln.places[0] === ln.places[ln.places.length - 1] ? ln.places[0] :
        ln.places[0] + "–" + ln.places[ln.places.length - 1]));
      tr.appendChild(el("td", ln.prize));
      tr.appendChild(el("td", ln.tour_points === null ? "" : ln.tour_points));
      tr.appendChild(el("td", ln.note || "", "why"));
      body.appendChild(tr);
    }
    scroll.appendChild(table);
    parts.push(scroll);
  }
  out.replaceChildren(...parts);
}

function status(text, down) {
  const s = box("status");
  s.textContent = text;
  s.className = down ? "down" : "";
}

box("title").textContent = TID;
// `?patches=true`: after a projection's first message, its later versions come as
// `event: patch`, RFC 6902 operations on the message held (services/feed/patch.py sends only
// add, remove and replace): on a big round a move is one board, not the whole games document.
const url = "/tournaments/" + encodeURIComponent(TID) + "/stream?patches=true&token=" +
  encodeURIComponent(token);

function applyPatch(doc, ops) {
  for (const op of ops) {
    const keys = op.path.split("/").slice(1).map(k => k.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (keys.length === 0) { doc = op.value; continue; }
    let parent = doc;
    for (const k of keys.slice(0, -1)) parent = parent[Array.isArray(parent) ? Number(k) : k];
    const last = keys[keys.length - 1];
    if (Array.isArray(parent)) {
      const i = last === "-" ? parent.length : Number(last);
      if (op.op === "add") parent.splice(i, 0, op.value);
      else if (op.op === "remove") parent.splice(i, 1);
      else parent[i] = op.value;
    } else if (op.op === "remove") delete parent[last];
    else parent[last] = op.value;
  }
  return doc;
}

function show(name, msg) {
  const old = docs[name];
  if (old && old.as_of_seq >= msg.as_of_seq) return;
  docs[name] = msg;
  document.body.dataset.asOfSeq = String(msg.as_of_seq);
  status("live · as of event " + msg.as_of_seq, false);
  if (name === "standings" || name === "tiebreaks") renderStandings();
  if (name === "playoff") renderPlayoff();
  if (name === "prizes") renderPrizes();
  if (name === "games") { renderGames(); renderPlayoff(); renderPrizes(); }
}

let source = null;
function connect() {
  source = new EventSource(url);
  for (const name of PROJECTIONS) {  // the registry's names, inlined by page.py
    source.addEventListener(name, ev => show(name, JSON.parse(ev.data)));
  }
  source.addEventListener("patch", ev => {
    const p = JSON.parse(ev.data);
    const held = docs[p.projection];
    let doc = null;
    if (held && held.as_of_seq === p.base_seq) {
      try { doc = applyPatch(held, p.ops); } catch (e) { doc = null; }  // patched in place
    }
    if (doc === null || doc.as_of_seq !== p.as_of_seq) {
      // Not the version this patch applies to (cannot happen on one connection): start again
      // from a fresh connection's whole messages.
      source.close();
      for (const k of Object.keys(docs)) delete docs[k];
      connect();
      return;
    }
    delete docs[p.projection];
    document.body.dataset.patches = String(Number(document.body.dataset.patches || 0) + 1);
    show(p.projection, doc);
  });
  source.onopen = () => {
    const seq = docs.standings ? " · as of event " + docs.standings.as_of_seq : "";
    status("live" + seq, false);
  };
  source.onerror = () => status("disconnected — reconnecting…", true);
}
connect();

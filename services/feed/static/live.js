/* Arbiter live page: renders the tournament's SSE stream (standings, tiebreaks, playoff,
 * prizes, games). Everything shown is set through textContent; nothing is parsed as HTML.
 * Needs TID (the tournament id), TNAME (its name), PROJECTIONS (the names of the published
 * projections), the #snapshot JSON (the latest message of each, rendered before the stream
 * opens), ArbiterBoard (board.js) and ArbiterStandings (standings.js) defined before it.
 *
 * Beyond the documents: each board's move list and the game opened large come from
 * GET /tournaments/{id}/games/{game_id} (SAN, FEN after each move, clocks, evaluations),
 * fetched once per game and then followed from the games document's last move; earlier
 * rounds' pairings and results come from the standings document's crosstable. */
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

// A player's cell, as the standings table draws it (standings.js).
const playerCell = ArbiterStandings.playerCell;

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
  if (data.game !== "go" && g.plies > 0) {
    const a = el("a", "PGN", "pgn-link");
    a.href = gameUrl(g.game_id, ".pgn");
    a.setAttribute("download", g.game_id + ".pgn");
    a.title = "Download the game (PGN)";
    a.addEventListener("click", e => e.stopPropagation());
    meta.appendChild(a);
  }
  card.appendChild(meta);
  if (data.game !== "go") card.appendChild(moveList(g.game_id, g.plies, true));
  card.tabIndex = 0;
  card.title = "Open board " + g.board + " large";
  card.addEventListener("click", () => openViewer(g.game_id));
  card.addEventListener("keydown", e => { if (e.key === "Enter") openViewer(g.game_id); });
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
  if (g.game !== "go") {
    // The move lists of the boards shown (and of the board opened large) are followed; a
    // list held for another game is kept while one more move extends it, else dropped.
    const followed = new Set(shown.map(p => p.game_id));
    if (viewer) followed.add(viewer.gid);
    for (const p of g.pairings) if (followed.has(p.game_id) || moves[p.game_id]) follow(p, followed.has(p.game_id));
  }
  const boards = box("boards");
  boards.replaceChildren(...shown.map(p => gameCard(p, g)));
  if (!shown.length) boards.replaceChildren(el("p", "No game in progress.", "empty"));
  renderPairings();
  renderViewer();
}

/* --- rounds: the current one (games document) and earlier ones (the crosstable) ---------- */

let viewRound = null; // null: follow the current round; else "stage:round"

function currentKey() {
  const r = docs.games && docs.games.data && docs.games.data.round;
  return r ? r.stage + ":" + r.round : null;
}

function roundKeys() {
  const ct = docs.standings && docs.standings.data.crosstable;
  const keys = [];
  for (let i = 1; ct && i <= ct.rounds; i++) keys.push("main:" + i);
  const cur = currentKey();
  if (cur && !keys.includes(cur)) keys.push(cur);
  return keys;
}

function roundLabel(key) {
  const [stage, rnd] = key.split(":");
  return (stage !== "main" ? stage + " · " : "") + "Round " + rnd +
    (key === currentKey() ? " (current)" : "");
}

function shownRound() {
  const keys = roundKeys();
  if (viewRound && keys.includes(viewRound)) return viewRound;
  return currentKey() || keys[keys.length - 1] || null;
}

function stepRound(delta) {
  const keys = roundKeys();
  const i = keys.indexOf(shownRound());
  const j = Math.max(0, Math.min(keys.length - 1, i + delta));
  if (keys[j]) { viewRound = keys[j] === currentKey() ? null : keys[j]; renderPairings(); }
}

/* An earlier round's games and byes, rebuilt from the crosstable (per player, per round:
 * opponent, colour, result, game id). Boards in the order of their game ids (the pairing
 * systems name them "<stage>-r<round>-b<board>"). */
function pastRound(rnd) {
  const ct = docs.standings && docs.standings.data.crosstable;
  const out = { pairings: [], byes: [] };
  if (!ct) return out;
  const people = names();
  const who = pid => people[pid] || { player_id: pid, name: pid };
  const seen = {};
  for (const p of ct.players) {
    for (const e of p.rounds) {
      if (e.round !== rnd) continue;
      if (!e.opponent) { out.byes.push({ player: who(p.player_id), kind: e.kind, display: e.display }); continue; }
      const key = e.game_id || [p.player_id, e.opponent].sort().join("|");
      if (seen[key]) continue;
      const white = e.colour === "black" ? e.opponent : p.player_id;
      const black = white === p.player_id ? e.opponent : p.player_id;
      const mine = white === p.player_id; // this entry is White's
      const outcome = e.outcome === "draw" ? "draw" : ((e.outcome === "win") === mine ? "white" : "black");
      let result = outcome === "draw" ? "1/2-1/2" : (outcome === "white" ? "1-0" : "0-1");
      if (e.kind === "forfeit_win" || e.kind === "forfeit_loss") result = outcome === "white" ? "+–−" : "−–+";
      const m = /-b(\d+)$/.exec(e.game_id || "");
      seen[key] = {
        game_id: e.game_id, board: m ? Number(m[1]) : null, white: who(white), black: who(black),
        result, status: "ended", forfeit: e.kind.startsWith("forfeit"),
      };
      out.pairings.push(seen[key]);
    }
  }
  out.pairings.sort((a, b) => (a.board || 1e9) - (b.board || 1e9) ||
    String(a.game_id).localeCompare(String(b.game_id), undefined, { numeric: true }));
  out.pairings.forEach((p, i) => { if (p.board === null) p.board = i + 1; });
  return out;
}

function renderRoundNav() {
  const keys = roundKeys();
  const shown = shownRound();
  const sel = box("round-select");
  sel.replaceChildren(...keys.map(k => {
    const o = el("option", roundLabel(k));
    o.value = k;
    return o;
  }));
  if (shown) sel.value = shown;
  const i = keys.indexOf(shown);
  box("round-prev").disabled = i <= 0;
  box("round-next").disabled = i < 0 || i >= keys.length - 1;
  box("round-live").hidden = !viewRound || viewRound === currentKey();
}

function renderPairings() {
  renderRoundNav();
  const g = docs.games && docs.games.data;
  const key = shownRound();
  const table = box("pairings");
  table.dataset.round = key ? key.split(":")[1] : "";
  let data = null;
  let past = false;
  if (key && key === currentKey()) data = g;
  else if (key && key.startsWith("main:")) { data = pastRound(Number(key.split(":")[1])); past = true; }
  const head = el("tr");
  for (const [h, c] of [["Bd", "bd"], ["White", "left wh"], ["Result", ""], ["Black", "left bl"], ["", "left st"]]) {
    head.appendChild(el("th", h, c));
  }
  table.tHead.replaceChildren(head);
  if (!data) { table.tBodies[0].replaceChildren(); return; }
  const rows = data.pairings.map(p => {
    const tr = el("tr", null, "game-row");
    if (p.game_id) {
      tr.dataset.game = p.game_id;
      tr.tabIndex = 0;
      tr.title = "Open board " + p.board + " large";
      tr.addEventListener("click", () => openViewer(p.game_id, p));
      tr.addEventListener("keydown", e => { if (e.key === "Enter") openViewer(p.game_id, p); });
    }
    tr.appendChild(el("td", p.board, "bd"));
    tr.appendChild(playerCell(p.white, "name left"));
    const res = p.status === "ended" ? resultText(p.result) : (p.status === "in_progress" ? "live" : "–");
    tr.appendChild(el("td", res, "result" + (p.status === "in_progress" ? " live" : "")));
    tr.appendChild(playerCell(p.black, "name left"));
    let st = past ? (p.forfeit ? "forfeit" : "") : (p.status === "ended" ? (p.termination || "").replace(/_/g, " ") :
      (p.status === "in_progress" ? "move " + Math.ceil(Math.max(p.plies, 1) / 2) : "not started"));
    if (p.corrected) st += " (corrected)";
    tr.appendChild(el("td", st, "status left"));
    return tr;
  });
  for (const b of data.byes) {
    const tr = el("tr");
    tr.appendChild(el("td", "", "bd"));
    tr.appendChild(playerCell(b.player, "name left"));
    tr.appendChild(el("td", "bye" + (b.display && past ? " " + b.display : ""), "result"));
    tr.appendChild(el("td", "", "name left"));
    tr.appendChild(el("td", b.kind.replace(/_/g, " "), "status left"));
    rows.push(tr);
  }
  table.tBodies[0].replaceChildren(...rows);
}

box("round-prev").addEventListener("click", () => stepRound(-1));
box("round-next").addEventListener("click", () => stepRound(1));
box("round-live").addEventListener("click", () => { viewRound = null; renderPairings(); });
box("round-select").addEventListener("change", ev => {
  viewRound = ev.target.value === currentKey() ? null : ev.target.value;
  renderPairings();
});

/* --- move lists: one fetch per game, then followed from the games document ---------------- */

const moves = {}; // game_id -> {rec: the game's record or null, want: plies in force, loading}

function gameUrl(gid, ext) {
  return "/tournaments/" + encodeURIComponent(TID) + "/games/" + encodeURIComponent(gid) +
    (ext || "") + (token ? "?token=" + encodeURIComponent(token) : "");
}

function load(gid) {
  const entry = moves[gid];
  if (entry.loading) return;
  entry.loading = true;
  const asked = entry.want;
  fetch(gameUrl(gid), { headers: { Accept: "application/json" } })
    .then(r => (r.ok ? r.json() : null))
    .then(rec => {
      entry.loading = false;
      if (rec) { entry.rec = rec; entry.failed = false; } else entry.failed = true;
      if (rec && entry.want !== rec.moves.length && entry.want !== asked) load(gid);
      gameChanged(gid);
    })
    .catch(() => { entry.loading = false; entry.failed = true; gameChanged(gid); });
}

/* Keep the move list of a game of the current round in step with its part of the games
 * document: one more move with its SAN is appended here, anything else is fetched again. */
function follow(p, fetching) {
  const entry = moves[p.game_id] || (moves[p.game_id] = { rec: null, want: -1, loading: false });
  entry.want = p.plies;
  const rec = entry.rec;
  if (rec && rec.moves.length === p.plies) return;
  const m = p.last_move;
  if (rec && p.plies === rec.moves.length + 1 && m && m.san && p.position_plies === p.plies) {
    const ev = p.evaluation && p.evaluation.ply === p.plies ? p.evaluation : null;
    rec.moves.push({
      ply: p.plies, colour: m.colour, uci: m.uci, san: m.san, fen: p.fen,
      clock_ms: p.clocks[m.colour + "_ms"], eval_cp: ev ? ev.cp : null,
      mate_in: ev ? ev.mate_in : null, depth: ev ? ev.depth : null,
    });
    rec.result = p.result;
    rec.termination = p.termination;
    return;
  }
  if (!rec && p.plies === 0) {
    entry.rec = { game_id: p.game_id, moves: [], start_fen: p.fen, result: p.result,
      termination: p.termination };
    return;
  }
  if (fetching) load(p.game_id);
  else if (!entry.loading) delete moves[p.game_id];
}

function gameChanged(gid) {
  for (const box_ of document.querySelectorAll('.moves[data-game="' + CSS.escape(gid) + '"]')) {
    box_.replaceWith(moveList(gid, null, box_.classList.contains("compact")));
  }
  if (viewer && viewer.gid === gid) renderViewer();
}

/* The move list of a game: "1. e4 e5 2. Nf3 …", each move a button that shows its position
 * in the large board; `compact`: the card's short box, scrolled to the last move. */
function moveList(gid, plies, compact) {
  const entry = moves[gid];
  const rec = entry && entry.rec;
  const list = el("div", null, "moves" + (compact ? " compact" : ""));
  list.dataset.game = gid;
  if (!rec) {
    list.appendChild(el("span", entry && entry.failed ? "moves unavailable" : (plies === 0 ? "" : "…"), "none"));
    return list;
  }
  list.dataset.plies = String(rec.moves.length);
  if (!rec.moves.length) { list.appendChild(el("span", "no moves", "none")); return list; }
  const first = rec.moves[0];
  for (const m of rec.moves) {
    if (m.colour === "white" || m === first) list.appendChild(el("span", moveNumber(rec, m), "no"));
    if (m === first && m.colour === "black" && !compact) list.appendChild(el("span", "", "gap"));
    const b = el(compact ? "span" : "button", m.san, "mv");
    b.dataset.ply = String(m.ply);
    if (!compact) {
      b.type = "button";
      if (viewer && viewer.gid === gid && shownPly(rec) === m.ply) b.classList.add("at");
      b.addEventListener("click", ev => {
        ev.stopPropagation();
        viewer.ply = m.ply === rec.moves.length ? null : m.ply; // the last move: follow the game
        renderViewer();
      });
    }
    list.appendChild(b);
  }
  if (compact) requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
  return list;
}
/* "12." before White's move, "12…" before a first move by Black (the start's move number). */
function moveNumber(rec, m) {
  const start = rec.start_fen ? Number((rec.start_fen.split(" ")[5]) || 1) : 1;
  const offset = rec.moves[0].colour === "black" ? 1 : 0;
  return String(start + Math.floor((m.ply - 1 + offset) / 2)) + (m.colour === "white" ? "." : "…");
}

/* --- the board opened large ------------------------------------------------------------- */

let viewer = null; // {gid, ply: null (follow the last move) or a ply, pairing: a past round's}

function liveGame(gid) {
  const g = docs.games && docs.games.data;
  return g ? g.pairings.find(p => p.game_id === gid) || null : null;
}

function openViewer(gid, pairing) {
  viewer = { gid, ply: null, pairing: pairing || null };
  const entry = moves[gid] || (moves[gid] = { rec: null, want: -1, loading: false });
  const g = docs.games && docs.games.data;
  if (!entry.rec && !(g && g.game === "go")) load(gid);
  renderViewer();
  const v = box("viewer");
  v.hidden = false;
  document.body.classList.add("viewing");
  const close = v.querySelector(".close");
  if (close) close.focus();
}

function closeViewer() {
  viewer = null;
  box("viewer").hidden = true;
  box("viewer").replaceChildren();
  document.body.classList.remove("viewing");
}

function shownPly(rec) {
  if (!viewer || viewer.ply === null || viewer.ply > rec.moves.length) return rec.moves.length;
  return viewer.ply;
}

function lastClock(rec, ply, colour) {
  for (let i = ply - 1; i >= 0; i--) {
    const m = rec.moves[i];
    if (m.colour === colour) return m.clock_ms ?? null;  // none reported: unknown, "–"
  }
  return null;
}

function lastEval(rec, ply) {
  for (let i = ply - 1; i >= 0; i--) {
    const m = rec.moves[i];
    if (m.eval_cp !== null || m.mate_in !== null) return { ply: m.ply, cp: m.eval_cp, mate_in: m.mate_in, depth: m.depth };
  }
  return null;
}

function renderViewer() {
  if (!viewer) return;
  const v = box("viewer");
  const gid = viewer.gid;
  const data = docs.games && docs.games.data;
  const live = liveGame(gid);
  const entry = moves[gid];
  const rec = entry && entry.rec;
  const go = data && data.game === "go";
  const info = live || viewer.pairing || rec || {};
  const white = info.white || {}, black = info.black || {};
  const total = rec ? rec.moves.length : (live ? live.plies : 0);
  const ply = rec ? shownPly(rec) : total;
  const atEnd = !rec || ply === rec.moves.length;
  // The position, clocks and evaluation shown: the games document's while following a game
  // of the current round, else the record's at the ply chosen.
  let fen, lastUci, clocks, ev, running = null;
  if (live && atEnd && (!rec || live.plies === rec.moves.length)) {
    fen = live.fen; lastUci = live.last_move ? live.last_move.uci : null;
    clocks = { white: live.clocks.white_ms, black: live.clocks.black_ms };
    ev = live.evaluation;
    running = live.status === "in_progress" ? live.to_move : null;
  } else if (rec) {
    fen = ply === 0 ? rec.start_fen : rec.moves[ply - 1].fen;
    lastUci = ply === 0 ? null : rec.moves[ply - 1].uci;
    clocks = { white: lastClock(rec, ply, "white"), black: lastClock(rec, ply, "black") };
    ev = lastEval(rec, ply);
  } else {
    clocks = { white: null, black: null };
  }
  const panel = el("div", null, "panel");
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-label", "Board");
  const top = el("div", null, "vtop");
  const rnd = info.round || (viewer.pairing ? null : (data && data.round ? data.round.round : null));
  const pastKey = !live && shownRound() ? shownRound().split(":")[1] : null;
  top.appendChild(el("span", ["Round " + (rec ? rec.round : (rnd || pastKey || "")),
    "Board " + (info.board || (rec && rec.board) || "")].join(" · "), "vwhere"));
  const result = live ? (live.status === "ended" ? live.result : null) : (rec ? rec.result : info.result);
  const termination = live ? live.termination : (rec ? rec.termination : null);
  top.appendChild(el("span", result ? resultText(result) + (termination ? " · " + termination.replace(/_/g, " ") : "") :
    (live && live.status === "in_progress" ? "live" : ""), "vresult"));
  const close = el("button", "×", "close");
  close.type = "button";
  close.setAttribute("aria-label", "close");
  close.addEventListener("click", closeViewer);
  top.appendChild(close);
  panel.appendChild(top);

  const boardCol = el("div", null, "vboard");
  const who = (colour, p) => {
    const row = el("div", null, "who " + colour);
    row.appendChild(el("span", null, "dot " + colour));
    const nm = el("span", null, "pname");
    if (p.title) nm.appendChild(el("span", p.title, "title"));
    nm.appendChild(document.createTextNode(p.name || p.player_id || ""));
    if (p.rating !== null && p.rating !== undefined) nm.appendChild(el("span", p.rating, "rating"));
    row.appendChild(nm);
    const c = el("span", fmtClock(clocks[colour]), "clock vclock " + colour);
    if (running === colour) c.classList.add("running");
    row.appendChild(c);
    return row;
  };
  boardCol.appendChild(who("black", black));
  const area = el("div", null, "area");
  // The evaluation bar when the game has evaluations (or every player is an engine).
  const evaluated = ev || (data && data.engine_event) || (rec && rec.moves.some(m => m.eval_cp !== null || m.mate_in !== null));
  if (evaluated) {
    const bar = el("div", null, "evalbar");
    const w = el("div", null, "w");
    w.style.height = ArbiterBoard.whiteShare(ev ? ev.cp : null, ev ? ev.mate_in : null).toFixed(1) + "%";
    bar.appendChild(w);
    bar.dataset.cp = ev && ev.cp !== null ? String(ev.cp) : "";
    bar.dataset.mate = ev && ev.mate_in !== null ? String(ev.mate_in) : "";
    area.appendChild(bar);
  }
  if (go) area.appendChild(ArbiterBoard.goBoard(data.board_size, live ? live.stones : null, live && live.last_move ? live.last_move.point : null));
  else area.appendChild(ArbiterBoard.chessBoard(fen, lastUci));
  boardCol.appendChild(area);
  boardCol.appendChild(who("white", white));
  const evText = ev ? ArbiterBoard.evalText(ev.cp, ev.mate_in) + (ev.depth !== null && ev.depth !== undefined ? " d" + ev.depth : "") : (evaluated ? "no evaluation yet" : "");
  boardCol.appendChild(el("div", evText, "veval"));
  panel.appendChild(boardCol);

  const side = el("div", null, "vside");
  const nav = el("div", null, "vnav");
  const step = (label, title, to) => {
    const b = el("button", label);
    b.type = "button";
    b.title = title;
    b.disabled = !rec || to === ply || to < 0 || to > total;
    b.addEventListener("click", () => { viewer.ply = to >= total ? null : to; renderViewer(); });
    nav.appendChild(b);
  };
  step("«", "start", 0);
  step("‹", "previous move", ply - 1);
  step("›", "next move", ply + 1);
  step("»", "last move", total);
  side.appendChild(nav);
  if (go) side.appendChild(el("p", "Go: the game record is an SGF file (arbiter export sgf).", "note"));
  else side.appendChild(moveList(gid, total, false));
  if (!go) {
    const a = el("a", "Download PGN", "pgn");
    a.href = gameUrl(gid, ".pgn");
    a.setAttribute("download", gid + ".pgn");
    side.appendChild(a);
  }
  panel.appendChild(side);
  v.dataset.game = gid;
  v.dataset.ply = String(ply);
  v.replaceChildren(panel);
  const at = v.querySelector(".moves .at");
  if (at) at.scrollIntoView({ block: "nearest" });
}

box("viewer").addEventListener("click", ev => { if (ev.target === box("viewer")) closeViewer(); });
document.addEventListener("keydown", ev => {
  if (!viewer) return;
  const rec = moves[viewer.gid] && moves[viewer.gid].rec;
  if (ev.key === "Escape") closeViewer();
  else if (rec && (ev.key === "ArrowLeft" || ev.key === "ArrowRight")) {
    const to = shownPly(rec) + (ev.key === "ArrowLeft" ? -1 : 1);
    if (to >= 0 && to <= rec.moves.length) { viewer.ply = to >= rec.moves.length ? null : to; renderViewer(); }
  }
});

/* The standings table (standings.js, shared with the console): tie-breaks headed in words,
 * the legend citing their articles, "Decided by"; the correction flags in names. */
function renderStandings(name) {
  const st = docs.standings;
  if (!st) return;
  ArbiterStandings.render(box("standings"), box("legend"), st, docs.tiebreaks);
  box("flags").replaceChildren(...ArbiterStandings.flags(st.data));
  renderCrosstable();
  if (name !== "tiebreaks") renderPairings();
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

box("title").textContent = TNAME;
document.title = TNAME + " — live";
// `?patches=true`: after a projection's first message, its later versions come as
// `event: patch`, RFC 6902 operations on the message held (services/feed/patch.py sends only
// add, remove and replace): on a big round a move is one board, not the whole games document.
// The stream starts from nothing (`last_event_id=0`) even though the page already shows the
// snapshot it came with: its whole first messages are what its patches apply to (a version
// the page holds arrives again and is skipped by `show`).
function streamUrl(after) {
  return "/tournaments/" + encodeURIComponent(TID) + "/stream?patches=true&last_event_id=" +
    after + (token ? "&token=" + encodeURIComponent(token) : "");
}

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

let streaming = false; // the stream is open (else the page shows the snapshot it came with)
function show(name, msg) {
  const old = docs[name];
  if (old && old.as_of_seq >= msg.as_of_seq) return;
  docs[name] = msg;
  document.body.dataset.asOfSeq = String(msg.as_of_seq);
  status((streaming ? "live · " : "") + "as of event " + msg.as_of_seq + (streaming ? "" : " · connecting…"), false);
  if (name === "standings" || name === "tiebreaks") renderStandings(name);
  if (name === "playoff") renderPlayoff();
  if (name === "prizes") renderPrizes();
  if (name === "games") { renderGames(); renderPlayoff(); renderPrizes(); }
}

let source = null;
function connect(after) {
  source = new EventSource(streamUrl(after));
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
      connect(0);
      return;
    }
    delete docs[p.projection];
    document.body.dataset.patches = String(Number(document.body.dataset.patches || 0) + 1);
    show(p.projection, doc);
  });
  source.onopen = () => {
    streaming = true;
    const seq = document.body.dataset.asOfSeq ? " · as of event " + document.body.dataset.asOfSeq : "";
    status("live" + seq, false);
  };
  source.onerror = () => {
    streaming = false;
    const seq = document.body.dataset.asOfSeq;
    status((seq ? "as of event " + seq + " · " : "") + "disconnected — reconnecting…", true);
  };
}

// The snapshot the page came with, rendered before the stream opens: never a blank page
// while the stream connects (or when it cannot).
for (const msg of JSON.parse(box("snapshot").textContent || "[]")) show(msg.projection, msg);
document.body.dataset.rendered = String(Object.keys(docs).length);
connect(0);

/* Arbiter's standings table, the one the live page (live.js) and the arbiter's console
 * (console.js) both show: inlined into each page before its own script (services/feed/page.py,
 * services/feed/console.py), as board.js is. Built from the standings and tiebreaks documents:
 * place ("3=" shared, "3?" for the organisers to decide), the player (title, name, rating, a
 * withdrawal), points and game counts, one column per tie-break headed in words a spectator
 * reads ("Buchholz cut 1": the column's `heading`) with the article it follows as the
 * header's tooltip and in the legend under the table, and why each row stands below the one
 * above in the same words. The correction flags name the players of the game they flag.
 * Everything shown is set through textContent; nothing is parsed as HTML.
 *
 * Written for Arbiter (no third-party code); the same licence as the project.
 */
"use strict";
(function (global) {
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  /* A player's cell: title, name, rating (the name as tooltip: a narrow screen cuts it). */
  function playerCell(p, cls) {
    const td = el("td", null, cls || "name");
    td.title = p.name || p.player_id;
    if (p.title) td.appendChild(el("span", p.title, "title"));
    td.appendChild(document.createTextNode(p.name || p.player_id));
    if (p.rating !== null && p.rating !== undefined) td.appendChild(el("span", p.rating, "rating"));
    return td;
  }

  /* A tie-break column's header: the heading in words (a document published before it had
   * one: the label), the article it follows as the tooltip. */
  function columnHead(c) {
    const th = el("th", c.heading || c.label, "tb");
    th.title = c.source;
    th.dataset.key = c.key;
    return th;
  }

  /* Under the table: each column's heading and the article it follows. */
  function legend(cols) {
    return cols.map(c => {
      const p = el("p", null, "cite");
      p.appendChild(el("b", c.heading || c.label));
      p.appendChild(document.createTextNode(": " + c.source));
      return p;
    });
  }

  /* "Decided by" in the same words as the column it names (the document says it with the
   * criterion's label, without the edition: "Buchholz Cut-1 2–1½" reads "Buchholz cut 1
   * 2–1½"), the article as its tooltip. The longest label that starts the text is the one it
   * names. */
  function decidedCell(t, cols) {
    const why = t ? t.decided_by : "";
    const td = el("td", why, "why");
    let best = null, len = 0;
    for (const c of cols) {
      const bare = c.label.replace(/ \([^)]*\)$/, "");
      if (c.heading && bare.length > len && why.startsWith(bare + " ")) { best = c; len = bare.length; }
    }
    if (best) {
      td.textContent = best.heading + why.slice(len);
      td.title = best.source;
    }
    return td;
  }

  function place(r) { return r.unresolved ? r.place + "?" : (r.shared ? r.place + "=" : r.place); }

  /* The game counts: all of them where there is room (the live page), the games played only
   * where there is not (the console, beside its forms). */
  const COUNTS = {
    full: [["Points", "points", r => r.score.display], ["Played", "", r => r.played],
      ["W", "", r => r.won], ["D", "", r => r.drawn], ["L", "", r => r.lost]],
    compact: [["Pts", "points", r => r.score.display], ["Pl", "", r => r.played]],
  };

  /* Fill `table` (thead, tbody) and `legendBox` from the standings message `st` and the
   * tiebreaks message `tb` (either may be older than the other; a row without tie-breaks yet
   * shows empty cells). `opts.compact`: the console's narrower table (points and games
   * played; no "Decided by"). */
  function render(table, legendBox, st, tb, opts) {
    const compact = !!(opts && opts.compact);
    const byPlayer = {};
    let cols = [];
    if (tb) {
      for (const r of tb.data.rows) byPlayer[r.player_id] = r;
      cols = tb.data.columns || [];
    }
    const counts = COUNTS[compact ? "compact" : "full"];
    const head = el("tr");
    head.appendChild(el("th", "#"));
    head.appendChild(el("th", "Player", "name"));
    for (const [h] of counts) head.appendChild(el("th", h));
    for (const c of cols) head.appendChild(columnHead(c));
    if (!compact) head.appendChild(el("th", "Decided by", "why"));
    table.tHead.replaceChildren(head);
    table.tBodies[0].replaceChildren(...st.data.rows.map(r => {
      const tr = el("tr", null, r.withdrawn ? "withdrawn" : "");
      tr.dataset.player = r.player_id;
      tr.appendChild(el("td", place(r)));
      const name = playerCell(r, "name");
      if (r.withdrawn) {  // a phone hides the tag (it would cut the name): the tooltip says it
        name.appendChild(el("span", "withdrawn", "tag"));
        name.title += " (withdrawn)";
      }
      tr.appendChild(name);
      for (const [, cls, value] of counts) tr.appendChild(el("td", value(r), cls));
      const t = byPlayer[r.player_id];
      for (const c of cols) {
        const v = t ? t.values[c.key] : null;
        tr.appendChild(el("td", v ? v.display : ""));
      }
      if (!compact) tr.appendChild(decidedCell(t, cols));
      return tr;
    }));
    if (legendBox) legendBox.replaceChildren(...legend(cols));
  }

  /* A correction flag in names: "Round 1, White – Black: corrected at event 14, after round 2
   * was paired; check that pairing" (the players from the crosstable, by the flag's game;
   * `data`: the standings document's data). */
  function flagText(f, data) {
    const names = {}, sides = {};
    for (const r of data.rows) names[r.player_id] = r.name;
    for (const p of (data.crosstable && data.crosstable.players) || []) {
      for (const e of p.rounds) if (e.game_id === f.game_id && e.colour) sides[e.colour] = p.player_id;
    }
    const game = sides.white && sides.black ?
      (names[sides.white] || sides.white) + " – " + (names[sides.black] || sides.black) : f.game_id;
    const later = f.rounds_paired_before;
    return (f.stage !== "main" ? f.stage + " · " : "") + "Round " + f.round + ", " + game +
      ": corrected at event " + f.corrected_at_seq + ", after round" + (later.length > 1 ? "s " : " ") +
      later.join(", ") + (later.length > 1 ? " were" : " was") + " paired; check " +
      (later.length > 1 ? "those pairings" : "that pairing");
  }

  /* The correction flags as paragraphs ("⚑ …", the document's own text as tooltip), or
   * `none` (a node, or nothing) when there are none. */
  function flags(data, none) {
    const fs = data.flags || [];
    if (!fs.length) return none ? [none] : [];
    return fs.map(f => {
      const p = el("p", "⚑ " + flagText(f, data), "flag");
      p.title = f.text;
      p.dataset.game = f.game_id;
      return p;
    });
  }

  global.ArbiterStandings = { render, playerCell, columnHead, legend, decidedCell, flagText, flags };
})(window);

/* Arbiter live page: boards drawn as plain SVG from the published games document.
 *
 * Chess: the FEN's placement field, the last move's squares highlighted (uci), pieces as the
 * Unicode chess glyphs (filled shapes, White's drawn light with a dark outline), coordinates
 * on the edge. Go: the grid, the star points, the stones (GTP vertices, "I" skipped) and a
 * mark on the last stone. No data is ever parsed as HTML: every element is built with
 * createElementNS and every text set through textContent.
 *
 * Written for Arbiter (no third-party code); the same licence as the project.
 */
"use strict";
(function (global) {
  const NS = "http://www.w3.org/2000/svg";
  const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
  const FILES = "abcdefgh";
  const GTP = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  /* "e2e4" -> [[file, rank], [file, rank]] (0-based, rank 0 = rank 1), or null. */
  function uciSquares(uci) {
    if (!uci || !/^[a-h][1-8][a-h][1-8]/.test(uci)) return null;
    const sq = (s) => [FILES.indexOf(s[0]), Number(s[1]) - 1];
    return [sq(uci.slice(0, 2)), sq(uci.slice(2, 4))];
  }

  function chessBoard(fen, lastUci, opts) {
    const flip = !!(opts && opts.flip);
    const root = svg("svg", { viewBox: "0 0 8 8", class: "board chess", role: "img" });
    root.appendChild(svg("title", {}, fen || "start position"));
    const at = (f, r) => (flip ? [7 - f, r] : [f, 7 - r]); // -> [x, y]
    const hl = uciSquares(lastUci);
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) {
        const [x, y] = at(f, r);
        const light = (f + r) % 2 === 1;
        root.appendChild(svg("rect", { x, y, width: 1, height: 1, class: light ? "sq l" : "sq d" }));
      }
    }
    if (hl) {
      for (const [f, r] of hl) {
        const [x, y] = at(f, r);
        root.appendChild(svg("rect", { x, y, width: 1, height: 1, class: "sq last" }));
      }
    }
    for (let i = 0; i < 8; i++) { // coordinates
      const [fx] = at(i, 0);
      root.appendChild(svg("text", { x: fx + 0.94, y: 7.95, class: "coord f" }, FILES[i]));
      const [, ry] = at(0, i);
      root.appendChild(svg("text", { x: 0.05, y: ry + 0.22, class: "coord r" }, i + 1));
    }
    const placement = (fen || "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR").split(" ")[0];
    const ranks = placement.split("/");
    for (let row = 0; row < 8 && row < ranks.length; row++) {
      let f = 0;
      for (const ch of ranks[row]) {
        if (/[1-8]/.test(ch)) { f += Number(ch); continue; }
        const glyph = GLYPH[ch.toLowerCase()];
        if (glyph && f < 8) {
          const [x, y] = at(f, 7 - row);
          const white = ch !== ch.toLowerCase();
          root.appendChild(svg("text", {
            x: x + 0.5, y: y + 0.54, class: white ? "pc w" : "pc b",
          }, glyph));
        }
        f += 1;
      }
    }
    return root;
  }

  /* "D4" on a size x size board -> [col, row] (row 0 = GTP row 1), or null (pass). */
  function gtp(vertex, size) {
    if (!vertex || vertex.toLowerCase() === "pass") return null;
    const col = GTP.indexOf(vertex[0].toUpperCase());
    const row = Number(vertex.slice(1)) - 1;
    if (col < 0 || col >= size || !(row >= 0 && row < size)) return null;
    return [col, row];
  }

  function starPoints(size) {
    if (size < 7) return [];
    const e = size >= 13 ? 3 : 2;
    const pts = [e, size - 1 - e];
    if (size % 2 === 1 && size >= 9) pts.splice(1, 0, (size - 1) / 2);
    const out = [];
    for (const a of pts) for (const b of pts) out.push([a, b]);
    return out;
  }

  function goBoard(size, stones, lastPoint) {
    const n = size || 19;
    const root = svg("svg", { viewBox: `-1 -1 ${n + 1} ${n + 1}`, class: "board go", role: "img" });
    root.appendChild(svg("title", {}, `${n}×${n} Go board`));
    root.appendChild(svg("rect", { x: -1, y: -1, width: n + 1, height: n + 1, class: "goban" }));
    const y = (row) => n - 1 - row;
    for (let i = 0; i < n; i++) {
      root.appendChild(svg("line", { x1: 0, y1: i, x2: n - 1, y2: i, class: "grid" }));
      root.appendChild(svg("line", { x1: i, y1: 0, x2: i, y2: n - 1, class: "grid" }));
    }
    for (const [c, r] of starPoints(n)) {
      root.appendChild(svg("circle", { cx: c, cy: y(r), r: 0.12, class: "star" }));
    }
    for (const colour of ["black", "white"]) {
      for (const v of (stones && stones[colour]) || []) {
        const p = gtp(v, n);
        if (!p) continue;
        root.appendChild(svg("circle", { cx: p[0], cy: y(p[1]), r: 0.47, class: "stone " + colour }));
      }
    }
    const last = gtp(lastPoint, n);
    if (last) {
      root.appendChild(svg("circle", { cx: last[0], cy: y(last[1]), r: 0.2, class: "lastmark" }));
    }
    return root;
  }

  /* Share of the bar for White, 0..100, from White's point of view (lichess' curve). */
  function whiteShare(cp, mateIn) {
    if (mateIn !== null && mateIn !== undefined) return mateIn > 0 ? 100 : 0;
    if (cp === null || cp === undefined) return 50;
    const w = 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
    return Math.max(2, Math.min(98, 50 + 50 * w));
  }

  function evalText(cp, mateIn) {
    if (mateIn !== null && mateIn !== undefined) return (mateIn < 0 ? "-M" : "M") + Math.abs(mateIn);
    if (cp === null || cp === undefined) return "";
    const p = (Math.abs(cp) / 100).toFixed(2);
    return (cp > 0 ? "+" : cp < 0 ? "−" : "") + p;
  }

  global.ArbiterBoard = { chessBoard, goBoard, whiteShare, evalText };
})(window);

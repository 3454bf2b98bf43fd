"""The live standings page: plain HTML and a little vanilla JS on `EventSource`.

It reads its token from its own `?token=` and passes it on to the stream (EventSource cannot
set headers). Everything shown is set through `textContent`, never parsed as HTML.
"""

from __future__ import annotations

import json

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__ — live</title>
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
 h1 { font-size: 1.4em; margin: 0 0 .2em; }
 #status { color: #666; margin-bottom: 1em; }
 #status.down { color: #b00; }
 table { border-collapse: collapse; margin: .5em 0 1.5em; }
 th, td { border-bottom: 1px solid #ddd; padding: .25em .6em; text-align: right; }
 th { background: #f4f4f4; }
 td.name, th.name, td.why, th.why { text-align: left; }
 td.why { color: #555; font-style: italic; }
 pre { background: #f8f8f8; padding: .5em; overflow: auto; }
</style>
</head>
<body>
<h1 id="title"></h1>
<div id="status">connecting…</div>
<h2>Standings</h2>
<table id="standings"><thead></thead><tbody></tbody></table>
<div id="flags"></div>
<h2>Playoff</h2>
<div id="playoff">—</div>
<h2>Prizes</h2>
<div id="prizes">—</div>
<script>
"use strict";
const TID = __TID__;
const token = new URLSearchParams(location.search).get("token") || "";
const docs = {};
document.getElementById("title").textContent = TID;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function renderStandings() {
  const st = docs.standings, tb = docs.tiebreaks;
  if (!st) return;
  const table = document.getElementById("standings");
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
    tr.appendChild(el("td", r.name || r.player_id, "name"));
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
  const flags = document.getElementById("flags");
  flags.replaceChildren(...(st.data.flags || []).map(f => el("p", "⚑ " + f.text)));
}

function renderPlayoff() {
  const box = document.getElementById("playoff");
  const d = docs.playoff && docs.playoff.data;
  if (!d) return;
  if (!d.defined) { box.textContent = "no playoff for this tournament"; return; }
  const parts = [el("p", "Status: " + d.status + (d.kind ? " (" + d.kind + ")" : ""))];
  if (d.still_in && d.still_in.length) parts.push(el("p", "Still in: " + d.still_in.join(", ")));
  for (const s of d.stages || []) {
    const scores = Object.entries(s.scores || {}).map(([p, x]) => p + " " + x.display).join(", ");
    parts.push(el("p", "Stage " + s.name + " (" + s.kind + ")" + (scores ? ": " + scores : "")));
  }
  for (const r of d.required_next || []) parts.push(el("p", "Next: " + r.text));
  if (d.final_order && d.final_order.length) {
    parts.push(el("p", "Final order: " + d.final_order.map(b => b.join(" = ")).join(", ")));
  }
  box.replaceChildren(...parts);
}

function renderPrizes() {
  const box = document.getElementById("prizes");
  const d = docs.prizes && docs.prizes.data;
  if (!d) return;
  if (!d.defined) { box.textContent = "no prize table"; return; }
  if (d.error) { box.textContent = "prizes: " + d.error; return; }
  const parts = [el("p", "Status: " + (d.status || "") + (d.currency ? " · " + d.currency : ""))];
  if (d.lines && d.lines.length) {
    const table = el("table");
    const head = el("tr");
    for (const h of ["Player", "Places", "Prize", "Tour points", "Note"]) {
      head.appendChild(el("th", h));
    }
    table.appendChild(head);
    for (const ln of d.lines) {
      const tr = el("tr");
      tr.appendChild(el("td", ln.player_id, "name"));
      tr.appendChild(el("td", ln.places[0] === ln.places[1] ? ln.places[0] : ln.places.join("–")));
      tr.appendChild(el("td", ln.prize));
      tr.appendChild(el("td", ln.tour_points === null ? "" : ln.tour_points));
      tr.appendChild(el("td", ln.note || "", "why"));
      table.appendChild(tr);
    }
    parts.push(table);
  } else {
    parts.push(el("pre", JSON.stringify(d, null, 1)));
  }
  box.replaceChildren(...parts);
}

function status(text, down) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.className = down ? "down" : "";
}

const url = "/tournaments/" + encodeURIComponent(TID) + "/stream?token=" +
  encodeURIComponent(token);
const source = new EventSource(url);
for (const name of ["standings", "tiebreaks", "playoff", "prizes"]) {
  source.addEventListener(name, ev => {
    const msg = JSON.parse(ev.data);
    const old = docs[name];
    if (old && old.as_of_seq >= msg.as_of_seq) return;
    docs[name] = msg;
    document.body.dataset.asOfSeq = String(msg.as_of_seq);
    status("live · as of event " + msg.as_of_seq, false);
    if (name === "standings" || name === "tiebreaks") renderStandings();
    if (name === "playoff") renderPlayoff();
    if (name === "prizes") renderPrizes();
  });
}
source.onopen = () => {
  const seq = docs.standings ? " · as of event " + docs.standings.as_of_seq : "";
  status("live" + seq, false);
};
source.onerror = () => status("disconnected — reconnecting…", true);
</script>
</body>
</html>
"""


def live_page(tournament_id: str) -> str:
    # The id matches the API's stream-id pattern (no markup characters); JSON-quote it for JS.
    return _PAGE.replace("__TITLE__", tournament_id).replace("__TID__", json.dumps(tournament_id))

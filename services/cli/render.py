"""What the `arbiter` commands print: the consoles, points (one formatting everywhere: `points`),
money (`money`: "USD 12,500.00"), players by name (`name_of`), the standings table (identity
columns, tie-breaks headed in words with the legend citing their rules, the correction flags,
the playoff's outcome) and the crosstable (`print_grid`). Names never wrap (`name_column`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from projections.standings import Table as StandingsTable


class _Console:
    """A rich Console made on first use: a command that prints JSON (or only fails) does not
    load rich (CLI start-up, issue 12 item 5)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def _made(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._made(), name)

    @property
    def width(self) -> int:  # a data descriptor, so that pytest's monkeypatch can restore it
        return self._made().width

    @width.setter
    def width(self, value: int) -> None:
        self._made().width = value

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_options", "_console"):
            object.__setattr__(self, name, value)
        else:  # e.g. a test setting the width
            setattr(self._made(), name, value)


def escape(text: str) -> str:
    """Rich markup escaped (`rich.markup.escape`), loading rich only when printing."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


# Wide enough for the standings' tiebreak columns when printing to a file or a pipe.
# No emoji codes (":smile:") in what the CLI prints: without them rich does not load its table.
out: Console = _Console(width=None if sys.stdout.isatty() else 160, emoji=False)  # type: ignore[assignment]
err: Console = _Console(stderr=True, emoji=False)  # type: ignore[assignment]


def points(value: Fraction | Decimal | int | str) -> str:
    """Points as every command prints them: the standings' half-point formatter (11½, ½, 3).
    Takes a number or the exact string a JSON document carries ("11.5", "31/3"); a string
    that is not a number (already shown, "1½") is printed as it is."""
    from projections.tiebreaks.registry import half_points

    try:
        exact = Fraction(value)
    except ValueError:  # already shown ("1½", "2½ (max 3½)"): as it is
        return str(value)
    return half_points(exact * 2 if exact.denominator > 2 else int(exact * 2))


def money(amount: Decimal | str, currency: str | None = None) -> str:
    """An amount of money as printed: exact (the Decimal, never a float), two decimals,
    thousands separated, after its currency ("USD 12,500.00"). JSON keeps the exact string."""
    exact = Decimal(amount)
    text = f"{exact:,.2f}" if exact == exact.quantize(Decimal("0.01")) else f"{exact:,f}"
    return f"{currency} {text}" if currency else text


def name_of(names: Mapping[str, str], pid: str) -> str:
    """A player's name for printing (the id when the player has none registered)."""
    return names.get(pid, pid)


def names_of(state: Any) -> dict[str, str]:
    """{player id: registered name} of a standings fold (`StandingsState.players`)."""
    return {pid: info.name for pid, info in state.players.items()}


def identity_columns(rows: Sequence[Any], go: bool = False) -> list[str]:
    """The identity columns a table shows: title, federation, club and rating when any player
    has one, and, for Go, the rank (`go_rank`)."""
    cols = [
        c
        for c in ("title", "federation", "club", "rating")
        if any(getattr(r, c, None) for r in rows)
    ]
    if go:
        cols.append("go_rank")
    return cols


#: How an identity column is headed.
IDENTITY_HEADS = {
    "title": "title",
    "federation": "fed",
    "club": "club",
    "rating": "rating",
    "go_rank": "rank",
}


def identity_column(t: Any, col: str) -> None:
    """An identity column (`identity_columns`): never narrower than what it holds (a rating's
    four digits, a rank's three characters), so a narrow console cuts headings, not values."""
    t.add_column(
        IDENTITY_HEADS[col],
        justify="right" if col == "rating" else "left",
        min_width={"rating": 4, "go_rank": 3, "federation": 3, "title": 3, "club": 4}[col],
    )


def name_column(t: Any, head: str = "player", console: Console | None = None) -> None:
    """A name column that never wraps: a long name is cut with an ellipsis, never broken
    over two lines (issue 24: wide names wrapped at 200 columns), and takes at most a third
    of the console's width, so that the other columns keep theirs."""
    width = (console or out).width
    t.add_column(
        head,
        justify="left",
        no_wrap=True,
        overflow="ellipsis",
        min_width=8,
        max_width=max(14, width // (3 if width >= NARROW else 6)),
    )


def print_legend(columns: Sequence[Any], console: Console | None = None) -> None:
    """Under a table: each tie-break column's heading and the rule it cites
    (`projections.standings.grid.Column`), the article kept out of the header."""
    for c in columns:
        (console or out).print(f"[dim]{escape(c.heading)}: {escape(c.source)}[/dim]")


#: Below this width the standings leave out the game counts (`COUNT_HEADS`).
NARROW = 120
COUNT_HEADS = ("played", "W", "D", "L", "byes", "ff +/-")


def print_standings(
    tournament: str,
    table: StandingsTable,
    console: Console | None = None,
    sections: Mapping[str, Any] | None = None,
    *,
    flags: Sequence[Mapping[str, Any]] = (),
    playoff: Mapping[str, Any] | None = None,
    _drop: int = 0,
) -> None:
    """The standings with the players' identity (title, federation, rating; a Go rank), a
    column per tiebreak headed in words, and why each row is below the one above; under it
    the legend citing each tie-break's rule, the correction flags (`flags`: the standings
    document's), the playoff's outcome (`playoff`: `playoff_summary`) and, for a Galway
    tournament, its sections' winners (`sections`: the standings document's)."""
    from rich.table import Table

    from projections.standings.grid import tiebreak_columns

    columns = tiebreak_columns(table)
    ct = table.crosstable
    go = ct is not None and ct.go is not None
    con = console or out
    # Narrower than the whole table (a terminal of 80): the game counts, then the titles and
    # federations give way to the tie-breaks, which decide the places (`_drop`: how many of
    # those two groups are left out; the widest table that fits is printed).
    counts = con.width >= NARROW and _drop < 1
    titles = con.width >= NARROW and _drop < 2
    ident = [c for c in identity_columns(table.rows, go) if titles or c in ("rating", "go_rank")]
    t = Table(title=f"Standings: {escape(tournament)} (as of seq {table.seq})")
    if table.edition:
        t.caption = f"FIDE C.07 {table.edition.edition} ({table.edition.source})"
    t.add_column("#", justify="right", no_wrap=True)
    name_column(t, console=con)
    for col in ident:
        identity_column(t, col)
    for col in ("score", *(COUNT_HEADS if counts else ())):
        t.add_column(col, justify="right", no_wrap=True)
    for c in columns:
        t.add_column(heading_lines(c.heading), justify="right", min_width=3)
    t.add_column("decided by", justify="left")
    decided = decided_in_words(table)
    for r in table.rows:
        place = f"{r.place}{'=' if r.shared else ''}{'?' if r.unresolved else ''}"
        tb = dict(r.tiebreaks)
        info = ct.players.get(r.player_id) if ct is not None else None
        who = {
            "title": r.title,
            "federation": r.federation,
            "club": r.club,
            "rating": r.rating,
            "go_rank": info.go_rank if info is not None else None,
        }
        t.add_row(
            place,
            escape(r.name) + (" (withdrawn)" if r.withdrawn else ""),
            *["" if who[c] is None else str(who[c]) for c in ident],
            r.score,
            *(
                (
                    str(r.played),
                    str(r.wins),
                    str(r.draws),
                    str(r.losses),
                    str(r.byes),
                    f"{r.forfeit_wins}/{r.forfeit_losses}",
                )
                if counts
                else ()
            ),
            *[tb.get(c.key, "–") for c in columns],
            decided.get(r.player_id, r.decided_by),
        )
    if titles and not _fits(t, con):
        return print_standings(
            tournament, table, console, sections, flags=flags, playoff=playoff, _drop=_drop + 1
        )
    con.print(t)
    print_legend(columns, con)
    for flag in flags:
        con.print(f"[yellow]flag[/yellow] {escape(flag_text(flag))}")
    if playoff is not None and playoff.get("text"):
        con.print(f"[bold]playoff[/bold]: {escape(playoff['text'])}")
    if sections is not None:
        print_sections(sections, console)


def _fits(t: Any, console: Console) -> bool:
    """The table at its natural width (no cell cut or wrapped) fits the console."""
    from rich.measure import Measurement

    natural = Measurement.get(console, console.options.update_width(10_000), t).maximum
    return natural <= console.width


def heading_lines(text: str, width: int = 10) -> str:
    """A column heading that a narrow column wraps without cutting a word: a hyphenated word
    longer than `width` breaks after its hyphen ("Sonneborn-" / "Berger")."""
    words = [w.replace("-", "-\n", 1) if len(w) > width and "-" in w else w for w in text.split()]
    return " ".join(words).replace("\n ", "\n")


def decided_in_words(table: StandingsTable) -> dict[str, str]:
    """Why each block's first row stands below the block above, the criterion in the words of
    its column heading (`Criterion.words`: "Buchholz cut 1 8½–7"); empty when the table's rows
    are not its ranking's blocks in order (then each row's own `decided_by` is shown)."""
    from projections.tiebreaks.registry import REGISTRY

    blocks = table.ranking.blocks
    if [p for block in blocks for p in block] != [r.player_id for r in table.rows]:
        return {}
    out_words: dict[str, str] = {}
    for b, bound in enumerate(table.ranking.boundaries, start=1):
        if b >= len(blocks) or not blocks[b]:
            break
        crit = REGISTRY.get(bound.criterion)
        words = crit.words if crit is not None and not crit.terminal else bound.label
        out_words[blocks[b][0]] = f"{words} {bound.above}–{bound.below}"
    return out_words


def flag_text(flag: Mapping[str, Any]) -> str:
    """A correction flag (`projections.documents.corrections_after_pairing`) in words, with
    the players' names when the flag carries them (`named_flags`)."""
    if flag.get("kind") != "correction_after_pairing":
        return str(flag.get("text", flag))
    game = flag["game_id"]
    if "white" in flag and "black" in flag:
        game = f"{flag['white']['name']} – {flag['black']['name']} ({game})"
    later = ", ".join(str(r) for r in flag["rounds_paired_before"])
    return (
        f"correction after pairing: round {flag['round']}, {game}, was corrected at seq "
        f"{flag['corrected_at_seq']}, after round(s) {later} had been paired: those "
        "pairings may rest on the old result"
    )


def named_flags(flags: Sequence[Mapping[str, Any]], state: Any) -> list[dict[str, Any]]:
    """The correction flags with each game's players, id and name (``white``, ``black``)
    beside the game id, as `arbiter standings` prints them and its --json carries them."""
    out_flags = []
    for flag in flags:
        named = dict(flag)
        game = state.games.get(flag.get("game_id"))
        if game is not None:
            for side in ("white", "black"):
                pid = getattr(game, side)
                info = state.players.get(pid)
                named[side] = {"player_id": pid, "name": info.name if info else pid}
        out_flags.append(named)
    return out_flags


def playoff_summary(view: Any, names: Mapping[str, str]) -> dict[str, Any]:
    """What the standings say of a playoff (`projections.playoffs.base.PlayoffView`): its
    status, winner and final order, ids with names beside them, and a line in words ("won
    by Ana Ortega (GCT 2.1 ...)")."""
    order = [list(block) for block in view.final_order]
    winner = view.winner
    rule = f"{view.kind}, {view.rule}"
    if view.status == "not_needed":
        text = ""
    elif winner is not None:
        text = f"won by {name_of(names, winner)} ({rule})"
    elif order:
        shown = " > ".join(" = ".join(name_of(names, p) for p in block) for block in order)
        text = f"{view.status}: {shown} ({rule})"
    elif view.tied:
        tied = ", ".join(name_of(names, p) for p in view.tied)
        text = f"{view.status.replace('_', ' ')}: tie between {tied} ({rule})"
    else:
        text = f"{view.status.replace('_', ' ')} ({rule})"
    return {
        "kind": view.kind,
        "status": view.status,
        "winner": winner,
        "winner_name": None if winner is None else name_of(names, winner),
        "final_order": order,
        "final_order_names": [[name_of(names, p) for p in block] for block in order],
        "text": text,
    }


def print_grid(title: str, grid: Any, console: Console | None = None) -> None:
    """A crosstable (`projections.standings.grid.Grid`): place, start number, name, identity,
    one cell per round ("12w1", "5b½", "+", "=", "-"), points and the tie-breaks, then the
    legend."""
    from rich.table import Table

    ident = identity_columns(grid.rows, grid.go)
    t = Table(title=escape(title))
    t.add_column("#", justify="right", no_wrap=True)
    t.add_column("no", justify="right", no_wrap=True)
    name_column(t, "name", console)
    for col in ident:
        identity_column(t, col)
    for rnd in range(1, grid.rounds + 1):
        t.add_column(str(rnd), justify="right", no_wrap=True)
    t.add_column("pts", justify="right")
    for c in grid.columns:
        t.add_column(heading_lines(c.heading), justify="right", min_width=3)
    for r in grid.rows:
        tb = dict(r.tiebreaks)
        t.add_row(
            f"{r.place}{'=' if r.shared else ''}",
            str(r.start_no),
            escape(r.name) + (" (withdrawn)" if r.withdrawn else ""),
            *["" if getattr(r, c) is None else str(getattr(r, c)) for c in ident],
            *[c.text for c in r.cells],
            r.score,
            *[tb.get(c.key, "–") for c in grid.columns],
        )
    con = console or out
    con.print(t)
    con.print(
        "[dim]a cell: the opponent's start number, w/b the colour, the result (1 ½ 0; + / - a "
        "forfeit won / lost); without a game: + a bye worth a win, = a half-point bye, "
        "- nothing[/dim]"
    )
    if grid.komi is not None:
        even, handicap = grid.komi
        con.print(
            f"[dim]Go: hN after a game = N handicap stones; komi {even} in an even game, "
            f"{handicap} with a handicap (LGC Scoring; each game's in --json)[/dim]"
        )
    print_legend(grid.columns, con)


#: Winners listed by name in a section's row; more are counted ("and 12 more").
SHOWN_WINNERS = 6


def print_sections(sections: Mapping[str, Any], console: Console | None = None) -> None:
    """Galway's sections under the standings: each section's winner(s) on the real score (a tie
    stated as one), or its leaders while rounds remain."""
    from rich.table import Table

    con = console or out
    if not sections["sections"]:
        con.print(f"Sections: {sections.get('note', 'not formed yet')}")
        return
    final = sections["status"] == "final"
    done = sections["rounds_finished"]
    of = f" of {sections['rounds']}" if sections.get("rounds") else ""
    title = "Section winners" if final else f"Section leaders after {done}{of} round(s)"
    t = Table(title=title, caption="the pairing bonus is for pairing only, never in a score")
    for col in ("section", "players", "score", "winner" if final else "leader", "places"):
        t.add_column(col, justify="right" if col in ("players", "score") else "left")
    for sec in sections["sections"]:
        winners = sec["winners"]
        names = [w["name"] for w in winners[:SHOWN_WINNERS]]
        if len(winners) > SHOWN_WINNERS:
            names.append(f"and {len(winners) - SHOWN_WINNERS} more")
        who = ", ".join(names)
        if sec["tied"]:
            who = f"tie ({len(winners)}): {who}"
        places = ", ".join(
            f"{w['place']}{'=' if w['shared'] else ''}" for w in winners[:SHOWN_WINNERS]
        )
        t.add_row(sec["name"], str(len(sec["players"])), sec["top_score"]["display"], who, places)
    con.print(t)


def print_bracket(bracket: Mapping[str, Any], names: Mapping[str, str]) -> None:
    """A Cup bracket so far (`projections.pairing.knockout.Bracket.as_dict`): each bracket
    round reached, its matches with seeds, score and winner (how and after which game), then the
    final order once decided."""
    from rich.table import Table

    def who(pid: str) -> str:
        return f"{names.get(pid, pid)} (#{bracket['seeds'][pid]})"

    lot = bracket.get("lot")
    if lot is not None:
        out.print(f"bracket: {len(lot['candidates'])} engines await the lot ({lot['rule']})")
    for rnd in bracket["rounds"]:
        state = "complete" if rnd["complete"] else "in progress"
        t = Table(title=f"{rnd['title']} ({state})", title_justify="left", show_edge=False)
        for col in ("match", "higher seed", "lower seed", "pairs", "games", "score", "result"):
            t.add_column(col, justify="right" if col in ("pairs", "games", "score") else "left")
        for m in rnd["matches"]:
            hp = m["half_points"]
            score = f"{points(Fraction(hp[m['high']], 2))}–{points(Fraction(hp[m['low']], 2))}"
            if m["winner"] is None:
                result = "undecided"
            else:
                result = (
                    f"{names.get(m['winner'], m['winner'])} wins ({m['decided']}, after game "
                    f"{m['decided_after']})"
                )
            played = sum(g["result"] is not None for g in m["games"])
            t.add_row(
                m["match_id"],
                who(m["high"]),
                who(m["low"]),
                str(m["pairs"]),
                str(played),
                score,
                result,
            )
        out.print(t)
    if bracket["final_order"]:
        order = [names.get(p, p) for p in bracket["final_order"]]
        out.print("final order: " + ", ".join(f"{i}. {n}" for i, n in enumerate(order, 1)))
    for note in bracket["notes"]:
        out.print(f"[dim]{note}[/dim]")


def print_json(body: dict[str, Any]) -> None:
    """`body` as indented JSON on stdout (non-ASCII kept), for a command's --json."""
    print(json.dumps(body, ensure_ascii=False, indent=2))

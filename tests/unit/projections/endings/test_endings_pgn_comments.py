"""Move comments: TCEC (`wv` White's view), cutechess (mover's view), lichess."""

from __future__ import annotations

from projections.endings.pgn_comments import (
    parse_comment,
    parse_cutechess,
    parse_lichess,
    parse_tcec,
)

TCEC = (
    "d=27, sd=51, mt=79538, tl=1723462, s=154979588, n=12325526694, pv=Qe7 Nd2 Kh8 d8=Q, "
    "tb=0, h=29.4, ph=0.0, wv=0.99, R50=49, Rd=-9, Rr=-1000, mb=+0+0+0+0+0,"
)


def test_tcec_fields():
    c = parse_tcec(TCEC)
    assert (c.book, c.eval_cp, c.mate_in, c.depth, c.move_time_ms, c.clock_ms, c.nodes) == (
        False,
        99,
        None,
        27,
        79538,
        1723462,
        12325526694,
    )
    assert c.field("R50") == "49" and c.field("Rd") == "-9"
    assert c.field("pv") == "Qe7 Nd2 Kh8 d8=Q"


def test_tcec_book_mates_and_notes():
    book = parse_tcec("book, mb=+0+0+0+0+0,")
    assert book.book and book.eval_cp is None and book.move_time_ms is None
    mate = parse_tcec("d=40, mt=100, tl=5000, wv=M15, R50=40,")
    assert (mate.eval_cp, mate.mate_in) == (None, 15)
    assert parse_tcec("wv=-M3,").mate_in == -3
    end = parse_tcec("d=61, wv=-0.01, Rd=0, mb=+0-1+0+1+0, Adjudication: TCEC draw rule")
    assert end.eval_cp == -1 and end.notes == ("Adjudication: TCEC draw rule",)
    assert parse_tcec("wv=0.25,").eval_cp == 25 and parse_tcec("wv=-0.26,").eval_cp == -26


def test_cutechess_is_the_movers_view():
    assert parse_cutechess("+0.35/20 1.2s", "white").eval_cp == 35
    black = parse_cutechess("+0.35/20 1.2s", "black")
    assert (black.eval_cp, black.depth, black.move_time_ms) == (-35, 20, 1200)
    mate = parse_cutechess("+M5/30 0.5s, White mates", "white")
    assert (mate.mate_in, mate.eval_cp, mate.notes) == (5, None, ("White mates",))
    assert parse_cutechess("-M3/12 0.01s", "black").mate_in == 3
    assert parse_cutechess("book", "white").book


def test_lichess_eval_and_clocks():
    c = parse_lichess("[%eval -1.20,25] [%clk 0:01:23.4] a note")
    assert (c.eval_cp, c.depth, c.clock_ms, c.notes) == (-120, 25, 83400, ("a note",))
    assert parse_lichess("[%eval #-3]").mate_in == -3
    assert parse_lichess("[%clk 1:00:00] [%emt 0:00:05]").move_time_ms == 5000


def test_arbiter_exports_nodes_and_exact_milliseconds():
    # services/interchange/pgn/export.py writes the milliseconds and the nodes searched
    c = parse_lichess("[%eval 1.11,14] [%clk 0:29:02.290] [%emt 0:01:00.710] [%nodes 9555929]")
    assert (c.eval_cp, c.depth, c.clock_ms, c.move_time_ms, c.nodes, c.notes) == (
        111,
        14,
        1_742_290,
        60_710,
        9_555_929,
        (),
    )
    assert parse_lichess("[%nodes -3]").nodes is None  # not a count


def test_parse_comment_picks_the_dialect():
    assert parse_comment(TCEC, "black").eval_cp == 99  # TCEC: White's view whoever moved
    assert parse_comment("+0.50/18 2.0s", "black").eval_cp == -50
    assert parse_comment("[%eval 0.5]", "black").eval_cp == 50
    assert parse_comment("book, mb=+0+0+0+0+0,", "white").book

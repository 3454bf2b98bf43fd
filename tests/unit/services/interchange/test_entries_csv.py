"""The CSV entry list (services/interchange/entries/csv.py) and a TRF file read as one
(entries/trf.py): a header row naming the columns, comma or semicolon, UTF-8 with or without a
BOM, a bad row refused with its line and column."""

from __future__ import annotations

import pytest

from services.interchange.entries import EntriesError, Entry, parse_entries, parse_entries_csv

GOOD = (
    "name,rating,title,federation,fide_id,club,go_rank\n"
    '"Carlsen, Magnus",2830,gm,nor,1503014,Offerspill,\n'
    "\n"
    '"Dvořák, Jan",0,,CZE,,"Praha, ŠK",\n'
)


def test_a_good_file_gives_one_entry_per_row_normalised():
    entries = parse_entries_csv(GOOD.encode())
    assert entries == [
        Entry("Carlsen, Magnus", 2830, "GM", "NOR", 1503014, "Offerspill", None, line=2),
        # 0 is unrated (as TRF writes it); the blank line 3 is skipped, line numbers stay true
        Entry("Dvořák, Jan", None, None, "CZE", None, "Praha, ŠK", None, line=4),
    ]
    assert entries[0].payload("carlsen-magnus") == {
        "player_id": "carlsen-magnus",
        "name": "Carlsen, Magnus",
        "rating": 2830,
        "title": "GM",
        "federation": "NOR",
        "fide_id": 1503014,
        "club": "Offerspill",
    }


def test_semicolons_a_bom_and_the_names_other_programs_give_the_columns():
    text = "\ufeffPlayer;Elo;FED;FIDE ID;Rank\nLee, Sedol;;KOR;;9P\nNowak, Ewa;1850;pol;;\n"
    entries = parse_entries_csv(text.encode("utf-8"))
    assert [(e.name, e.rating, e.federation, e.go_rank) for e in entries] == [
        ("Lee, Sedol", None, "KOR", "9p"),
        ("Nowak, Ewa", 1850, "POL", None),
    ]


def test_an_unknown_column_is_refused_by_its_name():
    with pytest.raises(EntriesError) as info:
        parse_entries_csv(b"name,rating,colour\nA,1500,white\n")
    assert info.value.where == "line 1, column colour"
    assert "unknown column 'colour'" in info.value.message


@pytest.mark.parametrize(
    ("text", "where", "why"),
    [
        ("name,rating\nA,1500\nB,15OO\n", "line 3, column rating", "'15OO' is not a whole number"),
        ("name;Rating\nA;1500\nB;4100\n", "line 3, column Rating", "less than or equal to 4000"),
        ("name,go_rank\nA,3k\nB,31k\n", "line 3, column go_rank", "'31k'"),
        ("name,rating\nA,1500\n,1400\n", "line 3, column name", "needs a name"),
        ("name,fed,federation\nA,X,Y\n", "line 1, column federation", "names federation again"),
        ("rating\n1500\n", "line 1, column name", "needs a name column"),
    ],
)
def test_a_bad_row_is_refused_with_its_line_and_column(text: str, where: str, why: str):
    with pytest.raises(EntriesError) as info:
        parse_entries_csv(text.encode())
    assert info.value.where == where
    assert why in info.value.message


def test_not_utf8_and_empty_files_are_refused_saying_what_to_do():
    with pytest.raises(EntriesError, match="not UTF-8"):
        parse_entries_csv("name\nDvořák\n".encode("cp1250"))
    with pytest.raises(EntriesError, match="empty"):
        parse_entries_csv(b"\n\n")
    with pytest.raises(EntriesError, match="no players"):
        parse_entries_csv(b"name,rating\n")


TRF = (
    "012 Club Open\n"
    "001    2 m  FM Novak, Petr                      1950 CZE      312345 1990/01/01  0.0    2\n"
    "001    1 m  GM Carlsen, Magnus                  2830 NOR     1503014 1990/11/30  0.0    1\n"
)


def test_a_trf_file_gives_its_player_records_in_start_rank_order():
    entries = parse_entries(TRF.encode(), "open.trf")
    assert [(e.name, e.rating, e.title, e.federation, e.fide_id, e.line) for e in entries] == [
        ("Carlsen, Magnus", 2830, "GM", "NOR", 1503014, 3),
        ("Novak, Petr", 1950, "FM", "CZE", 312345, 2),
    ]
    # the same bytes named .csv are read as a CSV (and refused: no such columns)
    with pytest.raises(EntriesError, match="unknown column"):
        parse_entries(TRF.encode(), "open.csv")

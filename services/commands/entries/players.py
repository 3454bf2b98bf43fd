"""The entry list as the organiser sees it, and a PLAYER as the organiser names one.

**Start numbers.** A player's start number is the TRF start rank of `arbiter export trf`
(`services/interchange/trf/write.py` `pairing_order`): the pairing numbers of the
tournament's own pairing system. For a FIDE Dutch or Galway Swiss that is the C.04.2 initial
ranking (rating, unrated last; title; the organiser's seed; then the name: `projections/
pairing/dutch.py` `initial_ranking`); for a Berger round robin the lot's numbers (registration
order before the lot is drawn); for the TCEC systems the organisers' seeding; for McMahon and
a tournament without a pairing system, registration order. The Dutch ranking is made again for
every round over the whole field (C.04.3 art. 1.2.2), so **a late entry can change the start
numbers of the players ranked below it**: `arbiter players T` (and `GET /tournaments/{id}/
players`) always print the numbers in force, the ones the next TRF export and pairing use.

**A PLAYER** (`resolve_player`) is, in this order:

1. a start number (digits), when one player has it;
2. a player id (exact, then ignoring case);
3. a name: the whole name, or a unique prefix of it, ignoring case, accents and punctuation
   (`"dvorak"` finds "Dvořák, Jan"; a name written "Surname, First" is also found from
   "First Surname"). A whole name wins over the prefixes it is one of. Two or more
   candidates are refused (`player.ambiguous`), naming each with its start number; none is
   refused (`player.unknown`).

**Player ids** (`player_id_for`) are made from the name so that the events stay readable:
"Carlsen, Magnus" is `carlsen-magnus`, a second one `carlsen-magnus-2`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from events_schema import Recorded
from projections.pairing.base import PairingRefused, context
from projections.pairing.dutch import byes_subject
from projections.standings import StandingsState
from projections.standings import fold as standings_fold
from services.commands.service import CommandRejected, CommandService

MAX_CANDIDATES = 10  # named in an ambiguity refusal


@dataclass(frozen=True)
class EntryRow:
    """One line of the entry list: the start number, the registered identity, the first round
    the player misses after a withdrawal (None: active; 1: from the start) and the byes they
    requested ({round: "half" | "zero"}, in force for rounds not yet paired and paired)."""

    start_no: int
    player_id: str
    name: str
    rating: int | None = None
    title: str | None = None
    federation: str | None = None
    fide_id: int | None = None
    club: str | None = None
    go_rank: str | None = None
    withdrawn_from: int | None = None
    byes: dict[int, str] = field(default_factory=dict)

    @property
    def status(self) -> str:
        return "active" if self.withdrawn_from is None else "withdrawn"

    def label(self) -> str:
        """`12 Carlsen, Magnus`: how the commands name a player back."""
        return f"{self.start_no} {self.name}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "start_no": self.start_no,
            "player_id": self.player_id,
            "name": self.name,
            "rating": self.rating,
            "title": self.title,
            "federation": self.federation,
            "fide_id": self.fide_id,
            "club": self.club,
            "go_rank": self.go_rank,
            "status": self.status,
            "withdrawn_from": self.withdrawn_from,
            "byes": {str(r): k for r, k in sorted(self.byes.items())},
        }


def create_first(tournament: str) -> str:
    """The refusal's words for a tournament never created: the organiser command that
    creates it (never an `arbiter append` with hand-written JSON)."""
    return (
        f"{tournament!r} is not a tournament: check the id, or create it first (`arbiter create "
        f"{tournament} --name ... --format swiss --rounds N`)"
    )


def fold_tournament(
    service: CommandService, tournament: str, what: str, upto: int | None = None
) -> StandingsState:
    """The standings fold of `tournament` (up to seq `upto`: a broadcaster's delayed view,
    services/api/delayed.py), refused (`<what>.unknown_tournament`) when it was never
    created."""
    state = standings_fold([Recorded.of(e) for e in service.log.read(tournament, 1, upto)])
    if state.created is None:
        raise CommandRejected(
            f"{what}.unknown_tournament",
            "TOURNAMENT",
            create_first(tournament),
            status=404,
        )
    return state


def start_numbers(state: StandingsState) -> dict[str, int]:
    """Player id -> start number (the module docstring): the TRF start rank of the export
    (`pairing_order`, the TRF numbering's one home); registration order while the system
    cannot number them yet (e.g. a lot not drawn); players it leaves out follow in
    registration order."""
    from services.interchange.trf.write import pairing_order

    try:
        order = list(pairing_order(state, "main")) if state.created is not None else []
    except Exception:  # no pairing numbers yet: registration order
        order = []
    seen = set(order)
    order += [pid for pid in state.players if pid not in seen]
    return {pid: n for n, pid in enumerate(order, start=1)}


def byes_in_force(state: StandingsState, stage: str, rnd: int) -> dict[str, str]:
    """The byes requested for a round: the decision of the latest `RulingIssued` in force
    whose subject is `byes_subject(stage, rnd)` (the reading of `projections/pairing/dutch.py`
    `requested_byes`), {player id: "half" | "zero"}."""
    subject = byes_subject(stage, rnd)
    found: dict[str, str] = {}
    for ruling in state.rulings.values():  # in stream order
        if ruling.subject == subject:
            raw = ruling.decision.get("byes", {})
            found = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
    return found


def _requested_rounds(state: StandingsState, stage: str = "main") -> list[int]:
    pattern = re.compile(re.escape(stage) + r":r(\d+):byes")
    rounds = {
        int(m.group(1)) for r in state.rulings.values() if (m := pattern.fullmatch(r.subject))
    }
    return sorted(rounds)


def entry_list(state: StandingsState) -> list[EntryRow]:
    """Every registered player, in start-number order."""
    numbers = start_numbers(state)
    try:
        histories = context(state, "main").players
    except PairingRefused:
        histories = {}
    byes: dict[str, dict[int, str]] = {}
    for rnd in _requested_rounds(state):
        for pid, kind in byes_in_force(state, "main", rnd).items():
            byes.setdefault(pid, {})[rnd] = kind
    rows = []
    for pid, info in state.players.items():
        h = histories.get(pid)
        rows.append(
            EntryRow(
                start_no=numbers.get(pid, len(numbers) + 1),
                player_id=pid,
                name=info.name,
                rating=info.rating,
                title=info.title,
                federation=info.federation,
                fide_id=info.fide_id,
                club=info.club,
                go_rank=info.go_rank,
                withdrawn_from=h.withdrawn_from if h is not None else None,
                byes=byes.get(pid, {}),
            )
        )
    return sorted(rows, key=lambda r: r.start_no)


def fold_name(text: str) -> str:
    """A name as compared: no accents, case-folded, punctuation read as spaces, runs of
    spaces as one (`"Dvořák,  Jan"` -> `"dvorak jan"`)."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    bare = bare.replace("ø", "o").replace("Ø", "O").replace("ß", "ss").replace("ł", "l")
    return " ".join(re.sub(r"[^\w]+", " ", bare.casefold()).split())


def _forms(name: str) -> tuple[str, ...]:
    """The ways a name may be written: as registered and, for "Surname, First", "First
    Surname"."""
    surname, comma, first = name.partition(",")
    forms = [fold_name(name)]
    if comma and first.strip():
        forms.append(fold_name(f"{first} {surname}"))
    return tuple(forms)


def resolve_player(
    state: StandingsState, text: str, field_name: str = "PLAYER", rows: list[EntryRow] | None = None
) -> EntryRow:
    """The player `text` names (the module docstring); refused `player.unknown` or
    `player.ambiguous` (the candidates listed with their start numbers)."""
    rows = rows if rows is not None else entry_list(state)
    wanted = text.strip()
    if not wanted:
        raise CommandRejected(
            "player.unknown", field_name, "name a player: a start number, id or name"
        )
    if wanted.isdigit():
        hit = [r for r in rows if r.start_no == int(wanted)]
        if hit:
            return hit[0]
    exact = [r for r in rows if r.player_id == wanted]
    if exact:
        return exact[0]
    folded = [r for r in rows if r.player_id.lower() == wanted.lower()]
    if len(folded) == 1:
        return folded[0]
    key = fold_name(wanted)
    if key:
        whole = [r for r in rows if key in _forms(r.name)]
        if len(whole) == 1:
            return whole[0]
        prefixed = whole or [r for r in rows if any(f.startswith(key) for f in _forms(r.name))]
        if len(prefixed) == 1:
            return prefixed[0]
        if prefixed:
            named = "; ".join(r.label() for r in prefixed[:MAX_CANDIDATES])
            more = len(prefixed) - MAX_CANDIDATES
            raise CommandRejected(
                "player.ambiguous",
                field_name,
                f"{wanted!r} names {len(prefixed)} players: {named}"
                + (f" and {more} more" if more > 0 else "")
                + "; give the start number or more of the name",
            )
    numbers = f"1-{len(rows)}" if rows else "none yet"
    raise CommandRejected(
        "player.unknown",
        field_name,
        f"no player is {wanted!r}: give a start number ({numbers}), a player id or the start "
        "of a name (`arbiter players` lists them)",
    )


def slug(name: str) -> str:
    """`"Carlsen, Magnus"` -> `"carlsen-magnus"`: ASCII letters and digits joined by '-'."""
    bare = fold_name(name).encode("ascii", "ignore").decode()
    text = "-".join(re.sub(r"[^a-z0-9]+", " ", bare).split())
    return text[:56].strip("-") or "player"


def player_id_for(name: str, taken: Collection[str]) -> str:
    """The id a new player with this name gets: its slug, with `-2`, `-3`, ... when the slug is
    taken in the tournament (`taken`)."""
    base = slug(name)
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def player_ids_for(names: Iterable[str], taken: Collection[str]) -> list[str]:
    """Ids for several new players at once, none equal to another or to a taken one."""
    used = set(taken)
    out = []
    for name in names:
        pid = player_id_for(name, used)
        used.add(pid)
        out.append(pid)
    return out

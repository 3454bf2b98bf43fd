"""A file's games placed in an existing tournament (`place`): the import into a tournament
that exists (`arbiter import pgn --tournament T`) and the relay (services/relay/) both start
here.

Each game of the plan, in file order:

1. a game the tournament already follows from this source (its `GameStarted.source` names
   the file and the game's place in it: `linked`) is that game: a restart, a re-import;
2. else, its White and Black named as registered players (the name, case and spacing aside),
   the game White–Black not claimed by another game of the file, not started or started
   with moves the file continues (a game in progress followed from another file), in the
   file's round (`Round` "3" or "3.2": round 3, as `import pgn` numbers them) first, then in
   any round;
3. else, when that round is not scheduled yet, a new game in it: the round is scheduled with
   every such game of the file (`RoundScheduled`, boards in file order, game ids
   `<round>.<board>`), and a name no player has is registered (`PlayerRegistered`, `kind`
   and rating as `import pgn` reads them), as an import does for a new tournament;
4. else the game is held, with why: a player unknown, or named by two players, or a paired
   round without that pairing (the import refuses it naming the line; the relay reports it
   and goes on with the others)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from events_schema import Envelope
from events_schema import events as ev
from projections.tournament.state import GameState, TournamentState
from services.interchange.pgn.plan import Plan, PlannedGame


@dataclass(frozen=True, slots=True)
class Held:
    """A game of the file not placed: its line, the rule and why."""

    index: int
    line: int
    rule: str
    why: str


@dataclass
class Placement:
    games: list[PlannedGame] = field(default_factory=list)  # placed (tournament ids)
    registered: list[ev.PlayerRegistered] = field(default_factory=list)  # names added
    rounds: dict[int, list[PlannedGame]] = field(default_factory=dict)  # rounds to schedule
    held: list[Held] = field(default_factory=list)


def sources(envelopes: Iterable[Envelope]) -> dict[tuple[str, int], str]:
    """The games the stream follows from a source: (file, index in it) → game id (from
    each `GameStarted.source`)."""
    out: dict[tuple[str, int], str] = {}
    for env in envelopes:
        if env.type != "GameStarted":
            continue
        src = env.payload.get("source") or {}
        if isinstance(src.get("file"), str) and isinstance(src.get("index"), int):
            out.setdefault((src["file"], src["index"]), str(env.payload["game_id"]))
    return out


def linked(envelopes: Iterable[Envelope], file_name: str) -> dict[int, str]:
    """The games the stream follows from `file_name`: the game's index in the file → its id."""
    name = file_name[:500]
    return {i: gid for (f, i), gid in sources(envelopes).items() if f == name}


def _norm(name: str) -> str:
    return " ".join(name.split()).casefold()


def place(state: TournamentState, p: Plan, links: Mapping[int, str]) -> Placement:
    """Where each game of the plan goes in the tournament `state` (the module docstring).
    The placed games are `p`'s own, their ids (game, players, round, board) rewritten."""
    names: dict[str, list[str]] = {}
    for pl in state.players.values():
        names.setdefault(_norm(pl.name), []).append(pl.player_id)
    planned = {pl.player_id: pl for pl in p.players}
    added: dict[str, str] = {}  # plan player id → the id registered now
    taken = set(links.values())
    scheduled = {rnd for (stage, rnd) in state.rounds if stage == "main"}
    out = Placement()

    def known(plan_id: str) -> str | None:
        ids = names.get(_norm(planned[plan_id].name), [])
        return ids[0] if len(ids) == 1 else added.get(plan_id)

    def fresh_id() -> str:
        n = len(state.players) + len(added) + 1
        while f"p{n:03d}" in state.players or f"p{n:03d}" in added.values():
            n += 1
        return f"p{n:03d}"

    for g in p.games:
        pgn = g.game
        game = state.games.get(links.get(pgn.index, ""))
        if game is not None:
            out.games.append(_at(g, game))
            continue
        white, black = known(g.white), known(g.black)
        if white is not None and black is not None:
            found = _pairing(state, white, black, g.round, taken, [m.uci for m in pgn.moves])
            if found is not None:
                taken.add(found.game_id)
                out.games.append(_at(g, found))
                continue
            ucis = [m.uci for m in pgn.moves]
            other = next(
                (
                    o
                    for o in state.games.values()
                    if (o.white, o.black) == (white, black) and o.round == g.round and o.started
                ),
                None,
            )
            if other is not None and other.game_id not in taken:
                k = next(
                    (i for i, (a, b) in enumerate(zip(other.moves, ucis, strict=False)) if a != b),
                    min(len(other.moves), len(ucis)),
                )
                there = other.moves[k] if k < len(other.moves) else "no move"
                here = ucis[k] if k < len(ucis) else "no move"
                out.held.append(
                    Held(
                        pgn.index,
                        pgn.line,
                        "pgn.moves_differ",
                        f"{other.game_id} (round {g.round}, the same players) has other moves "
                        f"in force: ply {k + 1} is {there} there, {here} in the file",
                    )
                )
                continue
        side_names = {planned[g.white].name: g.white, planned[g.black].name: g.black}
        twice = [n for n in side_names if len(names.get(_norm(n), [])) > 1]
        if twice:
            out.held.append(
                Held(pgn.index, pgn.line, "pgn.player_ambiguous", f"{twice[0]!r} names two players")
            )
            continue
        if g.round in scheduled:
            unknown = [n for n, pid in side_names.items() if known(pid) is None]
            why = (
                f"unknown player {unknown[0]!r}: round {g.round} is paired and has no such "
                "player (register them, or correct the name)"
                if unknown
                else f"round {g.round} is scheduled without White {planned[g.white].name!r} – "
                f"Black {planned[g.black].name!r}"
            )
            out.held.append(Held(pgn.index, pgn.line, "pgn.no_pairing", why))
            continue
        ids = []
        for pid in (g.white, g.black):
            tid = known(pid)
            if tid is None:
                tid = added[pid] = fresh_id()
                out.registered.append(planned[pid].model_copy(update={"player_id": tid}))
            ids.append(tid)
        games = out.rounds.setdefault(g.round, [])
        if any({ids[0], ids[1]} & {o.white, o.black} for o in games):
            out.held.append(
                Held(pgn.index, pgn.line, "pgn.no_pairing", f"a player twice in round {g.round}")
            )
            continue
        g.white, g.black, g.board = ids[0], ids[1], len(games) + 1
        g.game_id = gid = f"{g.round}.{g.board}"
        n = 1
        while g.game_id in state.games:
            n += 1
            g.game_id = f"{gid}-{n}"
        games.append(g)
        out.games.append(g)
    return out


def _pairing(
    state: TournamentState, white: str, black: str, rnd: int, taken: set[str], ucis: list[str]
) -> GameState | None:
    """The first game White–Black not taken, not started or started with moves the file
    continues (`ucis` begins with them), in round `rnd` first, then not started first."""
    free = [
        g
        for g in state.games.values()
        if g.white == white
        and g.black == black
        and g.game_id not in taken
        and (not g.started or g.moves == ucis[: len(g.moves)])
    ]
    free.sort(key=lambda g: (g.round != rnd, g.started, g.stage != "main", g.round))
    return free[0] if free else None


def _at(g: PlannedGame, game: GameState) -> PlannedGame:
    g.game_id, g.white, g.black, g.round = game.game_id, game.white, game.black, game.round
    return g

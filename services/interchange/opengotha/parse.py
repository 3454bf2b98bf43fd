"""A reader for OpenGotha's tournament file (the XML OpenGotha saves and `File > Import >
Tournament` reads; Luc Vannier's `ExternalDocument.java`: `importPlayersFromXMLFile`,
`importGamesFromXMLFile`, `importByePlayersFromXMLFile`,
`importTournamentParameterSetFromXMLFile`, and the writer `generateXMLFile`).

The file::

    <Tournament dataVersion="201" ...>
      <Players><Player name= firstName= rank= rating= club= country= egfPin=
                       smmsCorrection= participating="1101..." registeringStatus= .../>
      <Games><Game roundNumber= tableNumber= whitePlayer=KEY blackPlayer=KEY
                   knownColor= handicap= result="RESULT_WHITEWINS"/>
      <ByePlayers><ByePlayer roundNumber= player=KEY/>
      <TournamentParameterSet>
        <GeneralParameterSet name= beginDate= numberOfRounds= komi= size= genMMFloor=
                             genMMBar= genMMZero= genMMS2ValueBye= genMMS2ValueAbsent=
                             genRoundDownNBWMMS= genCountNotPlayedGamesAsHalfPoint= .../>
        <HandicapParameterSet hdBasedOnMMS= hdNoHdRankThreshold= hdCorrection= hdCeiling=/>
        <PlacementParameterSet><PlacementCriteria><PlacementCriterion number= name=/>…
        <PairingParameterSet …/> <DPParameterSet …/> <PublishParameterSet …/>
      <TeamTournamentParameterSet>…  <Teams>…  <ClubsGroups>…

Players are named in games and byes by their key, as OpenGotha matches them
(`Player.computeKeyString`: name and first name, blanks removed, in upper case; then, for
files of older versions, `Tournament.getPlayerByObsoleteCanonicalName`: the same with the
accents taken off, `Gotha.forceToASCII`). Upper case is Unicode's, the same in every locale
(Java's `toUpperCase()` follows the machine's locale: a Turkish machine writes ``İ`` for
``i``; such a key is matched here once its accents are off). Two players with one key are
refused, as OpenGotha refuses a homonym (`Tournament.addPlayer`).

Ranks are read as `Player.convertKDPToInt` reads them: ``13K``, ``3d``, ``2p`` (professional
ranks as 7d-9d), a bare number as kyu, out of range clamped to 30k-9d. The McMahon values of
`GeneralParameterSet` are "times two" (`genMMS2ValueBye="2"` is one point).

Bounded and safe: at most `MAX_BYTES` bytes and `MAX_ELEMENTS` elements, read by
`defusedxml` (no DTD, no entity: an entity declaration is refused, not expanded), rounds 1-20
(`Gotha.MAX_NUMBER_OF_ROUNDS`). A malformed file raises `OpenGothaError` naming the element
(`Game 12 (round 3, table 4)`) and the rule it breaks; nothing is read half.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from xml.etree.ElementTree import Element, ParseError, tostring

import defusedxml.ElementTree as SafeTree
from defusedxml import DefusedXmlException

MAX_BYTES = 16 * 1024 * 1024  # a 1,000-player, 20-round file is under 2 MiB
MAX_ELEMENTS = 200_000
MAX_ROUNDS = 20  # OpenGotha Gotha.MAX_NUMBER_OF_ROUNDS
MIN_RANK, MAX_RANK = -30, 8
GPS_TAG = "GeneralParameterSet"  # OpenGotha Gotha.MIN_RANK, MAX_RANK (30k, 9d)

RESULTS = (
    "RESULT_UNKNOWN",
    "RESULT_WHITEWINS",
    "RESULT_BLACKWINS",
    "RESULT_EQUAL",
    "RESULT_BOTHWIN",
    "RESULT_BOTHLOSE",
    "RESULT_WHITEWINS_BYDEF",
    "RESULT_BLACKWINS_BYDEF",
    "RESULT_EQUAL_BYDEF",
    "RESULT_BOTHWIN_BYDEF",
    "RESULT_BOTHLOSE_BYDEF",
)
#: OpenGotha `PlacementParameterSet.allPlacementCriteria` long names.
CRITERIA = (
    "NULL",
    "CAT",
    "NBW",
    "MMS",
    "STS",
    "Rank",
    "Rating",
    "CUSSW",
    "CUSSM",
    "SOSW",
    "SOSW-1",
    "SOSW-2",
    "SOSM",
    "SOSM-1",
    "SOSM-2",
    "SODOSW",
    "SODOSM",
    "SOSOSW",
    "SOSOSM",
    "SOSTS",
    "EXT",
    "EXR",
    "SDC",
    "DC",
)


class OpenGothaError(ValueError):
    """The file breaks a rule of the format: `where` names the element, `rule` the rule."""

    def __init__(self, where: str, rule: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where, self.rule, self.message = where, rule, message


@dataclass(frozen=True)
class OgPlayer:
    index: int  # 1-based, in file order
    key: str  # OpenGotha's key string
    name: str
    first_name: str
    rank: int  # OpenGotha's rank value: 30k = -30 … 1d = 0 … 9d = 8
    rating: int
    club: str
    country: str
    egf_pin: str
    smms_correction: int
    participating: str  # one character per round, "0" not participating
    registering: str  # FIN, or PRE (pre-registered: OpenGotha does not pair them)
    attrs: dict[str, str]  # every attribute as written

    @property
    def where(self) -> str:
        return f"Player {self.index} ({self.name} {self.first_name})"

    def participates(self, rnd: int) -> bool:
        """OpenGotha: a missing character is participating."""
        return rnd > len(self.participating) or self.participating[rnd - 1] != "0"


@dataclass(frozen=True)
class OgGame:
    index: int
    round: int
    table: int
    white: str  # player key as written
    black: str
    handicap: int
    result: str
    known_color: bool
    attrs: dict[str, str]

    @property
    def where(self) -> str:
        return f"Game {self.index} (round {self.round}, table {self.table})"


@dataclass(frozen=True)
class OgBye:
    index: int
    round: int
    player: str

    @property
    def where(self) -> str:
        return f"ByePlayer {self.index} (round {self.round})"


@dataclass
class OgFile:
    root: dict[str, str]
    players: list[OgPlayer]
    games: list[OgGame]
    byes: list[OgBye]
    general: dict[str, str]  # GeneralParameterSet
    handicap: dict[str, str]  # HandicapParameterSet
    criteria: list[str]  # PlacementCriterion names in number order ("NULL" left out)
    parameter_sets: list[str] = field(default_factory=list)  # the other sets, as written
    others: list[str] = field(default_factory=list)  # TeamTournamentParameterSet, Teams, ...
    categories: str = ""  # GeneralParameterSet's Categories child, as written
    display: dict[str, str] = field(default_factory=dict)  # DPParameterSet (kept as written)
    by_key: dict[str, OgPlayer] = field(default_factory=dict)

    def player(self, key: str, where: str) -> OgPlayer:
        """The player a game or a bye names, matched as OpenGotha matches it."""
        found = self.by_key.get(key_string(key)) or self.by_key.get(ascii_key(key))
        if found is None:
            raise OpenGothaError(where, "opengotha.unknown_player", f"no Player has key {key!r}")
        return found

    @property
    def rounds(self) -> int:
        """`numberOfRounds`, at least the last round with a game or a bye."""
        played = max([g.round for g in self.games] + [b.round for b in self.byes], default=0)
        return max(number(self.general, "numberOfRounds", "GeneralParameterSet", 1), played)

    @property
    def played_rounds(self) -> int:
        return max([g.round for g in self.games] + [b.round for b in self.byes], default=0)


def key_string(text: str) -> str:
    """OpenGotha `Player.computeKeyString`: blanks removed, upper case."""
    return text.replace(" ", "").upper()


def ascii_key(text: str) -> str:
    """The key with its accents taken off (OpenGotha `getPlayerByObsoleteCanonicalName`,
    `Gotha.forceToASCII`), for files of older versions or another locale's upper case."""
    folded = unicodedata.normalize("NFKD", key_string(text))
    return "".join(c for c in folded if not unicodedata.combining(c)).replace("İ", "I")


def rank_value(text: str, where: str) -> int:
    """OpenGotha `Player.convertKDPToInt`: ``13K`` -13, ``1D`` 0, ``2P`` 6, ``12`` -12;
    clamped to 30k-9d."""
    m = re.fullmatch(r"\s*(\d{1,3})\s*([kKdDpP]?)\s*", text)
    if m is None:
        raise OpenGothaError(where, "opengotha.rank", f"rank {text!r} is not a Go rank (13K, 2D)")
    n, kind = int(m[1]), m[2].lower()
    if kind == "d":
        value = n - 1
    elif kind == "p":
        value = 6 if n <= 3 else 7 if n <= 6 else 8
    else:
        value = -n
    return min(max(value, MIN_RANK), MAX_RANK)


def rank_text(value: int) -> str:
    """OpenGotha `Player.convertIntToKD`: 0 -> ``1D``, -1 -> ``1K``."""
    return f"{value + 1}D" if value >= 0 else f"{-value}K"


def number(attrs: dict[str, str], name: str, where: str, default: int) -> int:
    text = attrs.get(name)
    if text is None:
        return default
    try:
        return int(text.strip())
    except ValueError:
        raise OpenGothaError(
            f"{where} {name}", "opengotha.number", f"{text!r} is not a whole number"
        ) from None


def flag(attrs: dict[str, str], name: str, default: bool) -> bool:
    """Java's `Boolean.parseBoolean`: "true" in any case is true, anything else false."""
    text = attrs.get(name)
    return default if text is None else text.strip().lower() == "true"


def decimal(attrs: dict[str, str], name: str, where: str, default: str) -> Decimal:
    text = attrs.get(name, default)
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise OpenGothaError(
            f"{where} {name}", "opengotha.number", f"{text!r} is not a number"
        ) from None
    if not value.is_finite():
        raise OpenGothaError(f"{where} {name}", "opengotha.number", f"{text!r} is not a number")
    return value


def day(attrs: dict[str, str], name: str) -> date | None:
    """`beginDate`/`endDate` (yyyy-MM-dd); missing: None."""
    text = attrs.get(name)
    if not text:
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise OpenGothaError(
            f"GeneralParameterSet {name}", "opengotha.date", f"{text!r} is not a date yyyy-MM-dd"
        ) from None


def _round(attrs: dict[str, str], where: str) -> int:
    rnd = number(attrs, "roundNumber", where, 1)
    if not 1 <= rnd <= MAX_ROUNDS:
        raise OpenGothaError(
            f"{where} roundNumber",
            "opengotha.round",
            f"round {rnd} is outside 1-{MAX_ROUNDS} (OpenGotha Gotha.MAX_NUMBER_OF_ROUNDS)",
        )
    return rnd


def _player(index: int, el: Element) -> OgPlayer:
    a = dict(el.attrib)
    name, first = a.get("name", ""), a.get("firstName", "")
    where = f"Player {index} ({name} {first})".rstrip()
    if not name.strip() or not first.strip():
        raise OpenGothaError(
            where, "opengotha.player_name", "a Player has a name and a first name (OpenGotha)"
        )
    if any(ord(c) < 32 for c in name + first):
        raise OpenGothaError(where, "opengotha.player_name", "a control character in the name")
    participating = a.get("participating", "1" * MAX_ROUNDS)
    if not re.fullmatch(r"[01]*", participating):
        raise OpenGothaError(
            f"{where} participating", "opengotha.participating", "one 0 or 1 per round"
        )
    return OgPlayer(
        index=index,
        key=key_string(name + first),
        name=name,
        first_name=first,
        rank=rank_value(a.get("rank", "30K"), f"{where} rank"),
        rating=number(a, "rating", where, -900),
        club=a.get("club", ""),
        country=a.get("country", ""),
        egf_pin=a.get("egfPin", ""),
        smms_correction=number(a, "smmsCorrection", where, 0),
        participating=participating,
        registering=a.get("registeringStatus", "FIN"),
        attrs=a,
    )


def _game(index: int, el: Element) -> OgGame:
    a = dict(el.attrib)
    where = f"Game {index}"
    rnd = _round(a, where)
    table = number(a, "tableNumber", where, 1)
    where = f"Game {index} (round {rnd}, table {table})"
    if table < 1:
        raise OpenGothaError(f"{where} tableNumber", "opengotha.table", "tables start at 1")
    result = a.get("result", "RESULT_UNKNOWN")
    if result not in RESULTS:
        raise OpenGothaError(
            f"{where} result", "opengotha.result", f"{result!r} is not one of {', '.join(RESULTS)}"
        )
    handicap = number(a, "handicap", where, 0)
    if not 0 <= handicap <= 9:
        raise OpenGothaError(
            f"{where} handicap", "opengotha.handicap", f"{handicap} stones: a handicap is 0 to 9"
        )
    white, black = a.get("whitePlayer", ""), a.get("blackPlayer", "")
    if not white or not black:
        raise OpenGothaError(where, "opengotha.game_players", "a Game names both players")
    # OpenGotha writes knownColor; its reader looks for "strKnownColor" (read both).
    known = a.get("knownColor", a.get("strKnownColor", "true")) != "false"
    return OgGame(index, rnd, table, white, black, handicap, result, known, a)


def _children(parent: Element | None, tag: str) -> list[Element]:
    return [] if parent is None else [c for c in parent if c.tag == tag]


def _raw(el: Element) -> str:
    """An element kept as written, without the indentation between elements (so that a file
    written back, indented, is kept the same)."""
    for node in el.iter():
        if node.text is not None and not node.text.strip():
            node.text = None
        if node.tail is not None and not node.tail.strip():
            node.tail = None
    return tostring(el, encoding="unicode").strip()


def read_opengotha(raw: bytes) -> OgFile:
    """Parse an OpenGotha tournament file (bytes as saved: UTF-8, or the encoding its XML
    declaration names)."""
    if len(raw) > MAX_BYTES:
        raise OpenGothaError(
            "file", "opengotha.too_large", f"{len(raw)} bytes: at most {MAX_BYTES} are read"
        )
    if not raw.strip():
        raise OpenGothaError("file", "opengotha.empty", "the file is empty")
    if raw.count(b"<") > MAX_ELEMENTS * 2:
        raise OpenGothaError(
            "file", "opengotha.too_many_elements", f"more than {MAX_ELEMENTS} elements"
        )
    try:
        root = SafeTree.fromstring(raw, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise OpenGothaError(
            "file", "opengotha.entities", f"a DTD or an entity declaration is refused ({exc})"
        ) from None
    except ParseError as exc:
        raise OpenGothaError("file", "opengotha.xml", f"not well-formed XML: {exc}") from None
    except (LookupError, UnicodeError) as exc:  # the XML declaration names no known encoding
        raise OpenGothaError("file", "opengotha.encoding", f"unreadable encoding: {exc}") from None
    if root.tag != "Tournament":
        raise OpenGothaError(
            root.tag, "opengotha.root", "the root element of an OpenGotha file is Tournament"
        )
    if sum(1 for _ in root.iter()) > MAX_ELEMENTS:
        raise OpenGothaError(
            "file", "opengotha.too_many_elements", f"more than {MAX_ELEMENTS} elements"
        )
    players = [_player(i, el) for i, el in enumerate(_children(root.find("Players"), "Player"), 1)]
    by_key: dict[str, OgPlayer] = {}
    for p in players:
        for k in {p.key, ascii_key(p.key)}:
            other = by_key.get(k)
            if other is not None and other is not p:
                raise OpenGothaError(
                    p.where,
                    "opengotha.homonym",
                    f"same key {p.key!r} as {other.where} (OpenGotha refuses a homonym)",
                )
            by_key[k] = p
    games = [_game(i, el) for i, el in enumerate(_children(root.find("Games"), "Game"), 1)]
    byes = []
    for i, el in enumerate(_children(root.find("ByePlayers"), "ByePlayer"), 1):
        a = dict(el.attrib)
        byes.append(OgBye(i, _round(a, f"ByePlayer {i}"), a.get("player", "")))
    tps = root.find("TournamentParameterSet")
    if tps is None:
        raise OpenGothaError(
            "Tournament", "opengotha.no_parameters", "no TournamentParameterSet element"
        )
    gps = tps.find("GeneralParameterSet")
    if gps is None:
        raise OpenGothaError(
            "TournamentParameterSet", "opengotha.no_parameters", "no GeneralParameterSet"
        )
    hps = tps.find("HandicapParameterSet")
    criteria: list[tuple[int, str]] = []
    pps = tps.find("PlacementParameterSet")
    for el in [] if pps is None else pps.iter("PlacementCriterion"):
        a = dict(el.attrib)
        n = number(a, "number", "PlacementCriterion", 1)
        if not 1 <= n <= 6:
            raise OpenGothaError(
                f"PlacementCriterion {n}", "opengotha.criterion", "criteria are numbered 1-6"
            )
        criteria.append((n, a.get("name", "NULL")))
    categories = gps.find("Categories")
    dps = tps.find("DPParameterSet")
    og = OgFile(
        root=dict(root.attrib),
        players=players,
        games=games,
        byes=byes,
        general=dict(gps.attrib),
        handicap=dict(hps.attrib) if hps is not None else {},
        criteria=[name for _, name in sorted(criteria) if name != "NULL"],
        parameter_sets=[
            _raw(el)
            for el in tps
            if el.tag
            not in ("GeneralParameterSet", "HandicapParameterSet", "PlacementParameterSet")
        ],
        others=[
            _raw(el)
            for el in root
            if el.tag not in ("Players", "Games", "ByePlayers", "TournamentParameterSet")
        ],
        categories="" if categories is None else _raw(categories),
        display={} if dps is None else dict(dps.attrib),
        by_key=by_key,
    )
    _check_rounds(og)
    return og


def _check_rounds(og: OgFile) -> None:
    """Each player at most once per round (OpenGotha `Tournament.addGame`), one bye per
    round; every key known."""
    seen: dict[tuple[int, int], str] = {}
    tables: dict[tuple[int, int], str] = {}
    for g in og.games:
        w, b = og.player(g.white, g.where), og.player(g.black, g.where)
        if w is b:
            raise OpenGothaError(g.where, "opengotha.self_game", f"{w.where} plays themself")
        if (g.round, g.table) in tables:
            raise OpenGothaError(
                g.where, "opengotha.table", f"table {g.table} is also {tables[(g.round, g.table)]}"
            )
        tables[(g.round, g.table)] = g.where
        for p in (w, b):
            if (g.round, p.index) in seen:
                raise OpenGothaError(
                    g.where,
                    "opengotha.twice_in_round",
                    f"{p.where} is also in {seen[(g.round, p.index)]}",
                )
            seen[(g.round, p.index)] = g.where
    bye_rounds: dict[int, str] = {}
    for bye in og.byes:
        p = og.player(bye.player, bye.where)
        if bye.round in bye_rounds:
            raise OpenGothaError(
                bye.where, "opengotha.two_byes", f"round {bye.round} has a bye already"
            )
        bye_rounds[bye.round] = bye.where
        if (bye.round, p.index) in seen:
            raise OpenGothaError(
                bye.where,
                "opengotha.twice_in_round",
                f"{p.where} is in {seen[(bye.round, p.index)]}",
            )
        seen[(bye.round, p.index)] = bye.where

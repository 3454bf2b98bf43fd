"""Named chains an organiser picks at creation (`rules_preset`), each citing its rulebook."""

from __future__ import annotations

from events_schema.events import TiebreakOptions, TiebreakSpec
from events_schema.go import GoSettings
from projections.tiebreaks import czech, fide, mcmahon, tcec
from projections.tiebreaks.chain import Chain


def _chain(*names: str, pairwise: bool = False) -> Chain:
    return Chain(
        tuple(TiebreakSpec(name=n) for n in names),
        TiebreakOptions(pairwise_head_to_head=pairwise),
    )


PRESETS: dict[str, Chain] = {
    # GCT 2.1/3.1: a tie for first goes to a playoff (projections/playoffs); 2.8/3.8: ties
    # elsewhere share the place, prize and points.
    "gct": _chain("shared-place"),
    # The same ranking; the preset also names the playoff machine (projections/playoffs):
    # GCT §2 (rapid & blitz) and §3 (classical) event playoffs, §4 the overall tour playoff.
    "gct-rapid-blitz": _chain("shared-place"),
    "gct-classical": _chain("shared-place"),
    "gct-tour-playoff": _chain("shared-place"),
    # TCEC matches (Cup 3, Superfinal Leagues 7, FRD final 2.h/2.i) are decided by their
    # playoff machines; the table itself only shares.
    "tcec-cup": _chain("shared-place"),
    "tcec-superfinal": _chain("shared-place"),
    "tcec-frd-final": _chain("shared-place"),
    "tcec-4k-minifinal": _chain("shared-place"),
    **fide.PRESETS,
    **tcec.PRESETS,
    # Premier Division: the league chain for places below the SuFi spots; the SuFi spots
    # go to the Conditional Tiebreak (Leagues 6) when not decided on points.
    "tcec-premier": tcec.PRESETS["tcec-league"],
    **czech.PRESETS,
    # London Go Centre (McMahon, Go): OpenGotha's default placement criteria MMS, SOS,
    # SOSOS (events_schema.go.DEFAULT_CRITERIA), then shared places (OpenGotha ex aequo). A
    # tournament's own `GoSettings.criteria` replace them (`go_chain`).
    "lgc": _chain(*mcmahon.chain_names(GoSettings())),
}


def go_chain(settings: GoSettings, options: TiebreakOptions | None = None) -> Chain:
    """A Go McMahon tournament's chain: its `GoSettings.criteria` (OpenGotha names mapped by
    `projections.tiebreaks.mcmahon.CRITERION_OF`), then "shared-place"."""
    names = mcmahon.chain_names(settings)
    return Chain(tuple(TiebreakSpec(name=n) for n in names), options or TiebreakOptions())


def chain_for(
    rules_preset: str | None, specs: list[TiebreakSpec], options: TiebreakOptions | None
) -> Chain:
    """The tournament's chain: its explicit criteria if given, else its preset's."""
    if specs:
        return Chain(tuple(specs), options or TiebreakOptions())
    if rules_preset in PRESETS:
        preset = PRESETS[rules_preset]
        return Chain(preset.specs, options or preset.options)
    return _chain("shared-place")

"""`arbiter processor NAME`: one processor (a faust-streaming worker) per process.

    arbiter processor standings [--bootstrap H:P] [--topic T] [--output-topic T] [--group G]
                                [--data-dir D] [--web-port N] [--batch N]
    arbiter processor adjudicator [--tablebases DIR] [--bootstrap H:P] [--topic T] ...

    arbiter processor list        # the projections' names, one a line

NAME is a projection (the registry: projections/names.py; `arbiter processor list` prints it,
and deploy/processors/start and stop read it from there) or `adjudicator`, which ends games by
rule through the command path (services/projection/processors/adjudicator.py);
`--tablebases DIR` (else ARBITER_TABLEBASES) gives it Syzygy or Gaviota tables
(services/projection/tablebases.py), never implicitly.

Defaults come from the environment (KAFKA_BOOTSTRAP, ARBITER_TOPIC, ARBITER_PARTITIONS,
ARBITER_DATA).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from projections.names import PROJECTIONS

#: The names NAME takes: the projections, then the adjudicator (not a projection).
ADJUDICATOR = "adjudicator"
NAMES = (*PROJECTIONS, ADJUDICATOR)
#: `arbiter processor list`: print the projections' names (deploy/processors/start's default).
LIST = "list"


def processor(
    name: Annotated[
        str,
        typer.Argument(help=f"one of: {', '.join(NAMES)}; or {LIST}: print the projections' names"),
    ],
    bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap host:port")] = None,
    topic: Annotated[str | None, typer.Option(help="events topic")] = None,
    output_topic: Annotated[
        str | None, typer.Option(help="default arbiter.projection.NAME")
    ] = None,
    group: Annotated[str | None, typer.Option(help="default arbiter-processor-NAME")] = None,
    data_dir: Annotated[Path | None, typer.Option(help="status.json and Faust's datadir")] = None,
    web_port: Annotated[
        int | None, typer.Option(help="serve Faust's web on 127.0.0.1:N (default: off)")
    ] = None,
    batch: Annotated[int, typer.Option(help="stream.take batch size")] = 2000,
    session_timeout: Annotated[float, typer.Option(help="consumer session, s")] = 10.0,
    stall_after: Annotated[
        float,
        typer.Option(help="restart if new events go unfolded this long, s (0: never)"),
    ] = 20.0,
    loglevel: Annotated[str, typer.Option()] = "info",
    rebuild: Annotated[
        bool,
        typer.Option(help="fold the events topic before starting (off: fresh groups only)"),
    ] = True,
    tablebases: Annotated[
        Path | None,
        typer.Option(
            help="adjudicator only: Syzygy (*.rtbw) or Gaviota (*.gtb.cp4) tables "
            "(default: ARBITER_TABLEBASES; none: no tablebase adjudication)"
        ),
    ] = None,
) -> None:
    """Run the NAME processor: a projection (standings, tiebreaks, playoff, prizes) or
    the adjudicator (games ended by rule, through the command path)."""
    if name == LIST:
        typer.echo("\n".join(PROJECTIONS))
        return
    from services.config import Settings, limits_from_env
    from services.projection.processors.config import ProcessorConfig
    from services.projection.tablebases import TablebaseError, open_prober

    if name not in NAMES:
        raise typer.BadParameter(f"one of {', '.join(NAMES)}", param_hint="NAME")
    settings = Settings.from_env()
    if name == ADJUDICATOR:
        tablebases = tablebases or settings.tablebases
        try:  # a bad path fails here, before anything starts
            prober = open_prober(tablebases)
        except TablebaseError as exc:
            raise typer.BadParameter(str(exc), param_hint="--tablebases") from None
        if prober is not None:
            prober.close()
    elif tablebases is not None:
        raise typer.BadParameter("only the adjudicator reads tablebases", param_hint="NAME")
    cfg = ProcessorConfig(
        projection=name,
        bootstrap=bootstrap or settings.kafka_bootstrap,
        events_topic=topic or settings.kafka_topic,
        output_topic=output_topic,
        group=group,
        partitions=settings.kafka_partitions,
        replication_factor=settings.kafka_replication,
        group_commit_ms=settings.kafka_group_commit_ms,
        group_max_events=settings.kafka_group_max_events,
        snapshot_every=settings.snapshot_every,
        limits=limits_from_env(),
        data_dir=data_dir or settings.data_dir / "processors",
        web_port=web_port,
        batch=batch,
        session_timeout=session_timeout,
        stall_after=stall_after,
        rebuild=rebuild,
        tablebases=tablebases,
    )
    if name == ADJUDICATOR:
        from services.projection.processors.adjudicator import run as run_adjudicator

        run_adjudicator(cfg, loglevel=loglevel)
    else:
        from services.projection.processors.app import run

        run(cfg, loglevel=loglevel)


def register(app: typer.Typer) -> None:
    """Add `processor` to the `arbiter` app."""
    app.command("processor")(processor)

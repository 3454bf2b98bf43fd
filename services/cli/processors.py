"""`arbiter processor NAME`: one projection processor (a faust-streaming worker) per process.

    arbiter processor standings [--bootstrap H:P] [--topic T] [--output-topic T] [--group G]
                                [--data-dir D] [--web-port N] [--batch N]

Defaults come from the environment (KAFKA_BOOTSTRAP, ARBITER_TOPIC, ARBITER_PARTITIONS,
ARBITER_DATA); see services/processors/__init__.py for the design.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from projections.documents import PROJECTIONS


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `arbiter` app."""

    @app.command("processor")
    def processor(
        name: Annotated[str, typer.Argument(help=f"one of: {', '.join(PROJECTIONS)}")],
        bootstrap: Annotated[str | None, typer.Option(help="Kafka bootstrap host:port")] = None,
        topic: Annotated[str | None, typer.Option(help="events topic")] = None,
        output_topic: Annotated[
            str | None, typer.Option(help="default arbiter.projection.NAME")
        ] = None,
        group: Annotated[str | None, typer.Option(help="default arbiter-processor-NAME")] = None,
        data_dir: Annotated[
            Path | None, typer.Option(help="status.json and Faust's datadir")
        ] = None,
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
    ) -> None:
        """Run the NAME projection processor (standings, tiebreaks, playoff, prizes)."""
        from services.config import Settings
        from services.processors.app import run
        from services.processors.core import ProcessorConfig

        if name not in PROJECTIONS:
            raise typer.BadParameter(f"one of {', '.join(PROJECTIONS)}", param_hint="NAME")
        settings = Settings.from_env()
        cfg = ProcessorConfig(
            projection=name,
            bootstrap=bootstrap or settings.kafka_bootstrap,
            events_topic=topic or settings.kafka_topic,
            output_topic=output_topic,
            group=group,
            partitions=settings.kafka_partitions,
            data_dir=data_dir or settings.data_dir / "processors",
            web_port=web_port,
            batch=batch,
            session_timeout=session_timeout,
            stall_after=stall_after,
            rebuild=rebuild,
        )
        run(cfg, loglevel=loglevel)

"""The TCEC time controls (tcec-rules Leagues 9.2-9.4, Swiss 5.a, Cup 5.a, FRD 5.a, 4k 1.1):
one definition each, named by the season formats (`projections/seasons`) and the playoff
machines (`projections/playoffs`)."""

from __future__ import annotations

from events_schema.events import TimeControl

TC_30_3 = TimeControl(name="tcec-30+3", base_seconds=1800, increment_seconds=3)
TC_60_6 = TimeControl(name="tcec-60+6", base_seconds=3600, increment_seconds=6)
TC_120_12 = TimeControl(name="tcec-120+12", base_seconds=7200, increment_seconds=12)

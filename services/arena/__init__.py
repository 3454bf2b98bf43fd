"""The engine arena: UCI engines play the tournament's schedule, every move appended through
the command path as it is played (`arena.py`: the use case; `engines.py`: starting and asking
engines, their failures; `limits.py`: the run-level limit; `openings.py`: EPD/PGN openings
and game pairs). `arbiter arena` (services/cli/arena.py) runs it."""

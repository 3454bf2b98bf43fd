"""Pairing systems: pure functions from the tournament's state to the next round.

The interface is `base.py` (`context`, `PairingContext`, `Proposal`, `LotRequest`); which
system a tournament uses is `systems.py`; each system is a module named for it."""

"""Pairing systems: pure functions from the tournament's state to the next round.

The interface is `base.py` (`context`, `PairingContext`, `Proposal`, `LotRequest`, and
`PairingSystem`, what a system is); each system is a module named for it that defines its
`SYSTEM`; `systems.py` registers them (`SYSTEMS`) and says which one a tournament uses."""

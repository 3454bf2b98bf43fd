"""Files in and out: PGN, SGF and TRF, read into events on one import pipeline and written back."""

"""The command side: the command service and every use case that turns a request into events
(pairing, lots, seasons, authorisation)."""

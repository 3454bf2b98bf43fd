"""The decider's rules, one per event type, grouped by seam: registration and rounds, play
(chess and what both games share), Go (LGC), arbitration (rulings, sanctions, appeals,
pauses), corrections (results corrected, events retracted); `registry` maps each event type
to its rule and `lookups` holds the refusals several rules share."""

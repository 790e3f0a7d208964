"""Maintenance jobs (docs/architecture.md §6), run by django-q2's worker or by hand (``manage.py amem_jobs``).

A worker never opens the embedded index, so every job works from the database
alone: similarities come from the notes' stored embeddings, changes are written
in transactions with their ``NoteEvent`` and ``mark_dirty()``, and the web
process re-indexes the dirty notes on its next sync (the outbox, docs/architecture.md §2).

runner.py       per-agent steps, JobRun rows, the idle gate, the scheduled sequences
vectors.py      stored embeddings → best pairs above a threshold, in chunks
merge.py        the one merge routine (fold the loser into the winner, retire it, re-point links)
conflicts.py    recording a contradiction as a ConflictPair
quality.py      quality scan: too_short, expired_ephemeral, pending_conflict
pending.py      pending_merge resolution through the evolution judge
same_day.py     same-day merge
consolidation.py nightly consolidation
contradiction.py contradiction sweep
schedules.py    the schedules, synced into django-q2 (``manage.py amem_schedules``)
tasks.py        django-q2 entry points (stable dotted names: they are stored in the database)
"""

"""Maintenance jobs (docs/architecture.md §6), run by django-q2's worker or by hand (``manage.py amem_jobs``).

A worker never opens the embedded index, so every job works from the database
alone: similarities come from the notes' stored embeddings, changes are written
in transactions with their ``NoteEvent`` and ``mark_dirty()``, and the web
process re-indexes the dirty notes on its next sync (the outbox, docs/architecture.md §2).

runner.py            per-agent steps, JobRun rows, the idle gate, the scheduled sequences
vectors.py           stored embeddings → best pairs above a threshold, in chunks
lexical.py           the words notes share (TF-IDF): the pair sweep's second way to find a pair
merge.py             the one merge routine (fold the loser into the winner, retire it, re-point links)
quality.py           quality scan: too short, expired reminders, vague, filler, gibberish, the model's little_to_keep
text_quality.py      the quality scan's reading of one note's text
pending.py           open merge pairs resolved through the evolution judge
same_day.py          same-day merge
consolidation.py     nightly consolidation
contradiction_sweep.py  job contradiction_sweep, run by hand: every note to a model in batches (skips offline)
pair_sweep.py        job pair_sweep, nightly: each new note triaged against its nearest notes (with a model: the model reads the top)
episode_close.py     closing idle conversation sessions into episodes
periodic_reflection.py  the periodic reflection over recent memories
heartbeat.py         the worker's heartbeat and the broker's status (/healthz?deep)
schedules.py         the schedules, synced into django-q2 (``manage.py amem_schedules``)
tasks.py             django-q2 entry points (stable dotted names: they are stored in the database)
"""

"""Keeping the index in step with the database (Django side of the index).

indexer.py  applies dirty notes to the vector store (the outbox's apply step)
outbox.py   the background drainer of the owning process, and the write's own sync after commit
lookup.py   write-side look-ups in the index (nearest readable notes of a new text)
coverage.py how much of the database the index holds (/healthz?deep, the start-up check)
erased_traces.py  what an erased note leaves outside the database rows (cached text, SQLite log, PostgreSQL files)
lexical_length.py  the agent's BM25 average length, kept as notes are indexed

engine/index/ below holds the Django-free part: the store, the embedders, tokenising.
"""

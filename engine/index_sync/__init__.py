"""Keeping the index in step with the database (Django side of the index).

indexer.py  applies dirty notes to the vector store (the outbox's apply step)
outbox.py   the background drainer of the owning process, and the write's own sync after commit
lookup.py   write-side look-ups in the index (nearest readable notes of a new text)

engine/index/ below holds the Django-free part: the store, the embedders, tokenising.
"""

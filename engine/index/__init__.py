"""The index, Django-free: Qdrant behind one store interface, the embedders, BM25 tokens.

The Django side (applying dirty notes, the outbox drainer, write-side look-ups) is engine/index_sync/.
"""

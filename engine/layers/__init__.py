"""The memory layers on top of the notes (docs/architecture.md §9, docs/memory-layers.md).

One module per layer: core (named JSON blocks), importance (1–10 at write, the
optional forgetting-curve blend), facts (triples with validity), episodes
(session summaries), reflection (periodic notes citing their sources) and recall
(the token-budgeted bundle). tokens names the one tokenizer budgets are counted with.
"""

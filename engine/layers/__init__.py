"""The memory layers on top of the notes (docs/architecture.md §9, docs/memory-layers.md).

One module per layer: core (named JSON blocks), episodes (session summaries),
reflection (periodic notes citing their sources) and recall (the token-budgeted
bundle). tokens names the one tokenizer budgets are counted with. Importance and
facts, which the write path records, live below the write path in engine/annotations/.
"""

"""Write paths (docs/architecture.md §3): the pipeline, dedup, fold, construction, linking, evolution, CRUD, edits, conversations."""

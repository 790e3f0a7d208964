"""Write paths (DESIGN §3): the pipeline, dedup, fold, construction, linking, evolution, CRUD, edits, conversations."""

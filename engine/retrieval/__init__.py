"""Search (docs/architecture.md §4): fusion, heat and the link walk."""

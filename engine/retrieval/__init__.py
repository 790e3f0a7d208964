"""Search (DESIGN §4): fusion, heat and the link walk."""

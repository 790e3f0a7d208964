"""mem0's API at /mem0/, so code written for mem0ai's MemoryClient works against amem (docs/api.md).

routes.py   the calls, each mapped onto amem's operations
filters.py  mem0's filter language (AND / OR / NOT, operators) as one predicate over notes
shapes.py   notes and their history in mem0's answer shapes
auth.py     ``Authorization: Token <key>`` with amem's keys; the agent a call acts for
schemas.py  the request bodies, and the mem0 options amem refuses by name
"""

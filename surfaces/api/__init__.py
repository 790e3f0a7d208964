"""The JSON API (django-ninja routers mounted by amem_site/api.py).

agent.py          /api/v1/memories…: the agent's notes (write, search, list, edit, jobs)
layers.py         /api/v1/layers…: core memory, facts, episodes, the recall bundle
local.py          /api/v1/local…: the CLI's bridge to the process that owns the embedded index
key.py            /api/v1/key: what the caller's key is (an agent key, or a gateway key and its prefix)
auth.py           the agent's API key (Bearer) as a ninja auth class
schemas.py        request and response bodies of agent.py and local.py: a note's answer fields written
                  once (NoteFieldsOut, read from the Note by ninja resolvers), the list's paginator
layer_schemas.py  request and response bodies of layers.py
throttles.py      per-key rate limits and the bad-key lockout
mem0/             mem0's calls at /mem0/ (mem0ai's MemoryClient with host=".../mem0"), mapped onto the above
"""

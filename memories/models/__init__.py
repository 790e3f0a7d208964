"""The memories app's models: the notes graph (notes.py), the memory layers on top of it (layers.py)
gateways, one key acting for many agents under an id prefix (gateways.py), the bearer keys of agents
and gateways (keys.py: one abstract base, so both authenticate alike), and the audit of
erasures (erasure.py).

Django finds every model through this package; the rest of the code imports them from here.
"""

from memories.models.erasure import Erasure, WorkerBeat
from memories.models.gateways import Gateway, GatewayAgent, GatewayKey
from memories.models.layers import CoreBlock, CoreEvent, Episode, Fact
from memories.models.lexical import LexicalStats
from memories.models.notes import (
    CATEGORIES,
    CATEGORY_CHOICES,
    EVERYONE,
    SHARED_AGENT,
    Agent,
    ApiKey,
    JobRun,
    Link,
    LlmCall,
    Note,
    NoteEvent,
    NoteQuerySet,
    Pair,
    waiting_q,
)

__all__ = [
    "CATEGORIES",
    "CATEGORY_CHOICES",
    "EVERYONE",
    "SHARED_AGENT",
    "Agent",
    "ApiKey",
    "CoreBlock",
    "CoreEvent",
    "Episode",
    "Erasure",
    "Fact",
    "Gateway",
    "GatewayAgent",
    "GatewayKey",
    "JobRun",
    "LexicalStats",
    "Link",
    "LlmCall",
    "Note",
    "NoteEvent",
    "NoteQuerySet",
    "Pair",
    "WorkerBeat",
    "waiting_q",
]

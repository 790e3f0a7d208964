"""Who may review what: staff review every agent, other users the agents granted to them.

The grant is ``Agent.reviewers`` (editable in the Django admin). Shared-scope notes
(agent id ``shared``) have no agent row, so only staff review them. Every view
fetches through these helpers first: a note or agent the user may not review is
a 404, never a hint that it exists.
"""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet
from django.http import Http404

from memories.models import SHARED_AGENT, Agent, Note, Pair

# What request.user is: Django's own user model (the project sets no AUTH_USER_MODEL; Agent.reviewers
# points to it) or the anonymous user.
RequestUser = User | AnonymousUser


def agents_for(user: RequestUser) -> QuerySet[Agent]:
    """Agents this user may review, by id."""
    if not user.is_authenticated or not user.is_active:
        return Agent.objects.none()
    if user.is_staff:
        return Agent.objects.all()
    return Agent.objects.filter(reviewers=user)


def agent_ids_for(user: RequestUser) -> list[str]:
    """Agent ids (as stored on notes) this user may review; staff also get ``shared``."""
    ids = list(agents_for(user).values_list("pk", flat=True))
    if user.is_authenticated and user.is_staff:
        ids.append(SHARED_AGENT)
    return ids


def may_review(user: RequestUser, agent_id: str) -> bool:
    return agent_id in agent_ids_for(user)


def get_agent_id(user: RequestUser, agent_id: str | None) -> str:
    """A reviewable agent id, or 404."""
    if not agent_id or not may_review(user, agent_id):
        raise Http404("no such agent")
    return agent_id


def notes_for(user: RequestUser) -> QuerySet[Note]:
    """Every note (active or retired) of the agents this user may review."""
    return Note.objects.filter(agent_id__in=agent_ids_for(user))


def get_note(user: RequestUser, note_id: object) -> Note:
    """The note if the user may review its agent, else 404 (same answer as a missing note)."""
    try:
        pk = uuid.UUID(str(note_id))
    except ValueError:
        raise Http404("no such note") from None
    note = notes_for(user).filter(pk=pk).first()
    if note is None:
        raise Http404("no such note")
    return note


def pairs_for(user: RequestUser) -> QuerySet[Pair]:
    """Pairs (open or decided) the user may review: a conflict when they may review both notes,
    a merge when they may review the newer (its card hides an older note of another agent)."""
    ids = agent_ids_for(user)
    both = Q(older__agent_id__in=ids) | Q(kind=Pair.MERGE)
    return Pair.objects.select_related("older", "newer").filter(Q(newer__agent_id__in=ids) & both)


def get_pair(user: RequestUser, pair_id: object) -> Pair:
    """A pair the user may review, else 404."""
    key = str(pair_id)
    pair = pairs_for(user).filter(pk=int(key) if key.isdigit() else -1).first()
    if pair is None:
        raise Http404("no such pair")
    return pair


def older_hidden(pair: Pair, allowed: set[str]) -> bool:
    """Whether the pair's older note belongs to an agent outside ``allowed`` (the agent ids the
    user may review, ``agent_ids_for``): its card hides it, and only "both" or "unrelated" apply."""
    return pair.older.agent_id not in allowed

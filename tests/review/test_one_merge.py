"""One merge routine: the review app's merge and the nightly job's go through engine/maintenance/merge.py."""

from __future__ import annotations

import pytest

from engine.config import get_config
from engine.curation import actions
from engine.maintenance import merge
from engine.maintenance.runner import Step
from memories.models import Link, Note, Pair


def nightly(winner: Note, loser: Note, agent, reviewer) -> None:
    step = Step(job="consolidate", agent=agent, cfg=get_config())
    plan = merge.plan(step, winner, loser, f"{winner.content} {loser.content}")
    assert plan is not None
    assert merge.apply(step, plan) is not None


def review(winner: Note, loser: Note, agent, reviewer) -> None:
    pair = Pair.objects.create(kind=Pair.MERGE, older=winner, newer=loser)
    actions.decide(pair, "same", reviewer)
    pair.refresh_from_db()
    assert (pair.status, pair.resolution, pair.superseded_id) == (Pair.RESOLVED, "same", loser.pk)


@pytest.mark.parametrize("merge_with", [nightly, review], ids=["nightly", "review"])
def test_a_merge_re_points_links_into_the_loser_and_retires_it(merge_with, alice, reviewer, make_note):
    winner = make_note(alice, "The team standup moved to 9:30 every weekday morning.")
    loser = make_note(alice, "Standup is at 9:30 now.")
    citing = make_note(alice, "Alice prepares the standup agenda the evening before.")
    Link.objects.create(source=citing, target=loser)

    merge_with(winner, loser, alice, reviewer)

    loser.refresh_from_db()
    assert (loser.is_active, loser.merged_into_id) == (False, winner.pk)
    assert list(Link.objects.filter(source=citing).values_list("target_id", flat=True)) == [winner.pk]
    # One event group: the review app undoes the whole merge at once.
    groups = {e.after.get("group") for n in (winner, loser) for e in n.events.filter(action__in=["fold", "retire"])}
    assert len(groups) == 1 and None not in groups

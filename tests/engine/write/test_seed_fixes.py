"""Where we fix the seed (research §17): one test per fix."""

from __future__ import annotations

import pytest

from engine.index.tokenize import tokenize
from engine.llm.types import CrudOp
from engine.retrieval.search import search
from engine.write import crud
from engine.write.pipeline import FOLDED, add_episodic, add_memory
from memories.models import Link, Note


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_a_fold_keeps_the_old_text_and_leaves_no_stale_keywords(alice, store):  # §17.5
    old = add_memory("Bob has a golden retriever named Rex.", alice)
    assert "years" not in [k.lower() for k in old.note.keywords]
    result = add_memory("Bob has a golden retriever named Rex. Rex is four years old.", alice)
    note = Note.objects.get(pk=old.note.pk)
    assert result.outcome == FOLDED
    assert note.events.get(action="fold").before["content"] == "Bob has a golden retriever named Rex."
    assert "years" in [k.lower() for k in note.keywords]


def test_no_link_ever_points_at_an_id_that_is_not_a_real_neighbour(alice, store, provider, engine_config):  # §17.9
    engine_config(evolve_every=1)
    neighbour = add_episodic("Caroline adopted a grey kitten called Mochi.", alice)
    ghost = "00000000-0000-4000-8000-000000000000"
    provider.reply_json({"links": [str(neighbour.pk), ghost]}, role="link")
    provider.reply_json({"updates": [], "suggested_connections": [ghost, str(neighbour.pk)]}, role="evolve")
    add_memory("Mochi the grey kitten loves chasing laser pointers.", alice)
    ids = set(Note.objects.values_list("pk", flat=True))
    assert Link.objects.count() == 2
    assert all(s in ids and t in ids for s, t in Link.objects.values_list("source_id", "target_id"))


def test_internal_queries_never_heat_notes(alice, store):  # §17.10
    for text in ("Caroline adopted a grey kitten called Mochi.", "Caroline's kitten Mochi sleeps on the windowsill."):
        add_memory(text, alice)
    add_memory("Mochi the grey kitten loves chasing laser pointers.", alice)  # dedup + link look-ups
    add_memory("Caroline adopted a grey kitten called Mochi!", alice)  # L1 / fold look-ups
    crud.decide_and_apply([("user", "Caroline says Mochi the kitten now weighs two kilos.")], alice)
    assert set(Note.objects.values_list("retrieval_count", flat=True)) == {0}
    assert set(Note.objects.values_list("last_accessed", flat=True)) == {None}


def test_a_short_fact_does_not_cancel_the_turns_other_ops(alice, store):  # §17.13
    ops = [CrudOp("NEW", "ok"), CrudOp("NEW", "Alice switched her team to four-day weeks.")]
    outcomes = crud.apply_ops(ops, [], alice)
    assert [o.status for o in outcomes] == [crud.SKIPPED, crud.APPLIED]
    assert Note.objects.filter(content="Alice switched her team to four-day weeks.").exists()


def test_cyrillic_and_hangul_memories_are_tokenised_and_found_by_a_word(alice, store):  # §17.14
    ru = add_memory("Алексей переехал в Новосибирск и работает инженером.", alice).note
    ko = add_memory("민수는 서울에서 바리스타로 일하고 있다.", alice).note
    assert "новосибирск" in tokenize(ru.content) and "서울에서" in tokenize(ko.content)
    assert ru.keywords and ko.keywords
    assert search("Новосибирск", alice, heat=False)[0].note.pk == ru.pk
    assert search("서울에서", alice, heat=False)[0].note.pk == ko.pk

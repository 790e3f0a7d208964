"""Heat never hides a match: real MiniLM vectors, real index, real heat bumps."""

from __future__ import annotations

import pytest
from django.utils import timezone

from engine.index_sync import indexer
from engine.retrieval.search import embed_query, search
from engine.write.pipeline import EpisodicItem, add_episodic_batch
from memories.models import Note

# Thirty notes close to the query in meaning but without its words; one note that only
# shares the query's unique word (BM25 rank 1, dense rank 31: outside the dense pool of 20).
TREKS = [f"Alex went trekking in the Alps with friends, day {i}, and slept in a mountain hut." for i in range(30)]
UNIQUE = "The courier left the parcel with Zephyrine next door on Tuesday."

pytestmark = pytest.mark.realmodel  # retrieval quality: real MiniLM vectors


def write(alice, texts: list[str]) -> list[Note]:
    notes = add_episodic_batch(alice, [EpisodicItem(t) for t in texts])
    indexer.sync_dirty()
    return notes


def test_a_note_found_only_by_its_unique_word_stays_in_the_top_3_after_others_are_heated(alice, store):
    notes = write(alice, [*TREKS, UNIQUE])
    unique = notes[-1]
    query = "Did Zephyrine enjoy hiking up high peaks and sleeping in cabins during the alpine holiday?"
    cold = [r.note for r in search(query, alice, limit=10, heat=False, links=False)]
    assert unique in cold[:3]
    # Heat 20 others as 50 retrievals each would: count 50, just accessed.
    others = [r.note.pk for r in search(query, alice, limit=25, heat=False, links=False) if r.note != unique][:20]
    Note.objects.filter(pk__in=others).update(retrieval_count=50, last_accessed=timezone.now())
    hot = [r.note for r in search(query, alice, limit=10, heat=False, links=False)]
    assert unique in hot[:3], [n.content[:40] for n in hot]


# A small question set: each question has one answering note; the rest are distractors.
FACTS = {
    "What pet does Maria have?": "Maria adopted a grey cat called Pixel from the shelter.",
    "Where did Tom go on holiday?": "Tom spent his summer holiday walking the coast of Portugal.",
    "What instrument is Lena learning?": "Lena started cello lessons with a teacher from the conservatory.",
    "What did Sam cook for the party?": "Sam made a huge pot of vegetable paella for the birthday party.",
    "Which city did Priya move to?": "Priya packed up her flat and moved to Rotterdam for the new job.",
    "What sport does Ken play?": "Ken plays badminton every Thursday evening at the sports hall.",
    "What book is Ana reading?": "Ana is halfway through a thick novel about a lighthouse keeper.",
    "What car did Joe buy?": "Joe finally bought a second-hand electric hatchback in blue.",
    "Where does Mei work?": "Mei works as a nurse on the night shift at the children's hospital.",
    "What did Omar paint?": "Omar painted a large mural of sunflowers on the school wall.",
    "What is Ruth allergic to?": "Ruth found out she is allergic to peanuts after a bad reaction.",
    "Which language is Ivan studying?": "Ivan studies Japanese on the train every morning with flashcards.",
}
DISTRACTORS = [
    "Maria and Tom talked about the weather for a while.",
    "Lena said the party was fun and everyone stayed late.",
    "Ken and Joe discussed holidays, jobs and pets over coffee.",
    "Ana mentioned that the city is busy in the summer.",
    "Omar and Mei compared notes on their new hobbies.",
    "Ruth and Ivan chatted about books, sports and cooking.",
]


def recall_at_1(alice, questions, vectors, answers) -> float:
    hits = 0
    for question, vector in zip(questions, vectors, strict=True):
        top = search(question, alice, limit=1, heat=False, links=False, query_vector=vector)
        hits += bool(top) and top[0].note.pk == answers[question]
    return hits / len(questions)


def test_recall_at_1_is_not_lower_after_a_burst_of_1000_heated_queries(alice, store):
    notes = write(alice, [*FACTS.values(), *DISTRACTORS])
    answers = {q: n.pk for q, n in zip(FACTS, notes, strict=False)}
    questions = list(FACTS)
    vectors = [embed_query(q) for q in questions]
    before = recall_at_1(alice, questions, vectors, answers)
    # A burst: the questions asked again and again with the default search (heat on, limit 10).
    for i in range(1000):
        j = i % len(questions)
        search(questions[j], alice, limit=10, links=False, query_vector=vectors[j])
    after = recall_at_1(alice, questions, vectors, answers)
    assert after >= before, (before, after)

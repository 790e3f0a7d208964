"""Search: dense + BM25 from the index → score fusion → named dates → heat (a bounded tie-breaker)
→ link lift → top-K → link walk (docs/architecture.md §4).

Every scope filter (agent, subject, topics) is inside both index queries
(memories/access.py builds them). Candidates are re-read from the database and
re-checked there, so a stale index entry can never surface a retired or foreign
note (docs/architecture.md §2). Only the returned matches are heated; link results and
internal look-ups never are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.utils import timezone

from engine import metrics, runtime
from engine.annotations import importance
from engine.config import EngineConfig, get_config
from engine.errors import InvalidInput
from engine.index.store import AnyOf, Condition, Eq, Hit, IndexFilter, Not, VectorStore, bm25_query_vector
from engine.index.tokenize import tokenize
from engine.retrieval.candidates import Candidate, read_whole, visible_candidates
from engine.retrieval.dates import Window, named_windows, overlap, told_windows, within
from engine.retrieval.fusion import dense_share, rrf_fuse, score_fuse
from engine.retrieval.heat import SCORE_STEP, bump_heat, heat_bonus
from engine.retrieval.language import dense_vote
from engine.retrieval.links import lift, link_paths, note_cosine, targets_of, touching, walk_links
from engine.retrieval.relevance import BACKGROUND_OF, background, relevance
from engine.retrieval.surrounding import Neighbours, Surrounding, covered, neighbours, surrounding_of
from engine.text import check_storable
from memories import access
from memories.models import Agent, Note

MAX_LIMIT = 100
MAX_TOPICS = 20


@dataclass
class Result:
    note: Note
    via: str
    similarity: float
    # The fused score the ranking used (0–1; 0 for a link result), and the two legs' reciprocal
    # rank fusion, kept for callers that read it (docs/api.md).
    score: float
    rrf: float
    explain: dict = field(default_factory=dict)
    # How likely the note bears on the query (0–1, engine/retrieval/relevance.py): the floors'
    # measure, comparable across searches, unlike ``score``; None for a model without weights.
    relevance: float | None = None
    # The turns around a match in its conversation, earliest first (engine/retrieval/surrounding.py);
    # empty for a link result and for a note outside a conversation.
    surrounding: list[Surrounding] = field(default_factory=list)


class Ranking:
    """How search ranks: the product's stages and the settings it uses (docs/architecture.md §4).

    ``RANKING`` is the product's; the product has no other. The benchmarks' ablations
    (bench/pipeline.py) subclass it to switch a stage off or try another fusion.
    """

    # Pool per leg: min(max(pool_factor·limit, pool_min), visible). With RRF, 2·limit was better
    # (a deep pool let notes mediocre in both legs collect a second vote); score fusion keeps how
    # far ahead a hit is, so deeper pools only add candidates: LoCoMo R@10 0.741 at 30, 0.747 at
    # 40 in the replay (docs/benchmarks.md, "LoCoMo round 3"). docs/architecture.md §4 says 4·limit.
    pool_factor: int = 4
    pool_min: int = 40
    # The dense leg's vote on a CJK query when the model is English-only (engine/retrieval/language.py);
    # 0 skips the leg. Chosen on MADial zh/en (docs/benchmarks.md).
    cjk_dense_weight: float = 0.0
    # Link lift (engine/retrieval/links.py: lift): a candidate linked from a better one ranks at its own
    # score plus this share of that one's, so the turn next to a strong match competes for the k slots.
    # ``link_lift_far`` is the share two links away (the turn after next).
    link_lift: float = 0.8
    link_lift_far: float = 0.5
    # Added to the candidates from a day or month the query names (engine/retrieval/dates.py); at 1
    # they rank before every candidate from another time that is not lifted by one of them.
    date_boost: float = 1.0
    # Turns carried before and after each match (engine/retrieval/surrounding.py); 0: none, and a
    # match's neighbours compete for the slots as matches of their own. Chosen on LoCoMo
    # conversations 0-3 at limit 10: R@10 0.761 (none), 0.838 (one each way), 0.878 (two), and
    # a gold session among the results 0.955 (one), 0.964 (two) (docs/benchmarks.md).
    context_span: int = 2

    def pool(self, limit: int, visible: int | None = None) -> int:
        """How many candidates each leg fetches; ``visible`` caps it where the caller knows the count."""
        pool = max(self.pool_factor * limit, self.pool_min)
        return pool if visible is None else min(pool, visible)

    def query_terms(self, query: str) -> list[str]:
        """The BM25 query: function words dropped (documents keep them; IDF handles them there)."""
        # A query made only of function words still deserves a lexical leg.
        return tokenize(query, drop_stop_words=True) or tokenize(query)

    def legs(
        self,
        store: VectorStore,
        collection: str,
        query: str,
        qvec: np.ndarray | None,
        terms: list[str],
        flt: IndexFilter,
        pool: int,
    ) -> tuple[list[Hit], list[Hit], float]:
        """The dense leg's hits, the BM25 leg's, and the dense leg's vote in the fusion."""
        vote = self.dense_vote(query)
        dense, lexical = store.query_legs(collection, qvec if vote > 0 else None, bm25_query_vector(terms), flt, pool)
        return dense, lexical, vote

    def dense_vote(self, query: str) -> float:
        # An English-only model's vote on a Chinese query is noise (engine/retrieval/language.py).
        return dense_vote(query, runtime.embedder(), self.cjk_dense_weight)

    def fuse(
        self, dense: list[Hit], lexical: list[Hit], terms: list[str], vote: float, pool: int, rrf: dict[str, float]
    ) -> tuple[dict[str, float], float]:
        """The fused score of every candidate and the step below which heat may break ties."""
        return score_fuse(dense, lexical, dense_share(len(terms), dense) * vote, pool), SCORE_STEP

    def heat_weight(self, cfg: EngineConfig) -> float:
        return cfg.heat_weight

    def importance_blend(self, cfg: EngineConfig) -> float:
        """The forgetting-curve blend (engine/annotations/importance.py): AMEM_IMPORTANCE_WEIGHT."""
        return cfg.importance_weight


RANKING = Ranking()


def clean_topics(topics: object) -> tuple[str, ...]:
    """Requested topics, case-folded and de-duplicated; a bad value is an InvalidInput."""
    if topics is None:
        return ()
    if isinstance(topics, str) or not isinstance(topics, Sequence):
        raise InvalidInput("topics_filter must be a list of strings")
    cleaned: list[str] = []
    for topic in topics:
        if not isinstance(topic, str) or not topic.strip():
            raise InvalidInput("topics_filter must hold non-empty strings")
        if topic.strip().casefold() not in cleaned:
            cleaned.append(topic.strip().casefold())
    if len(cleaned) > MAX_TOPICS:
        raise InvalidInput(f"topics_filter may hold at most {MAX_TOPICS} topics")
    return tuple(cleaned)


def topics_conditions(topics: tuple[str, ...]) -> tuple[Condition, ...]:
    """Per topic: not a knowledge note, or a knowledge note carrying it (AND over topics)."""
    not_knowledge = Not(Eq("note_type", Note.KNOWLEDGE))
    return tuple(AnyOf((not_knowledge, Eq("topics", t))) for t in topics)


def topics_allow(note: Note | Candidate, topics: tuple[str, ...]) -> bool:
    if not topics or note.note_type != Note.KNOWLEDGE:
        return True
    have = {t.casefold() for t in note.topics or []}
    return all(t in have for t in topics)


def embed_query(query: str) -> np.ndarray:
    # Asymmetric models (E5) embed queries differently from passages.
    return runtime.embedder().encode_query(query)  # one text: ONNX Runtime on one thread (engine/index/embeddings.py)


def from_named_time(candidates: list[Candidate], windows: list[Window]) -> set[str]:
    """The candidates from the time the query names: said then, or telling of it in their own words
    (engine/retrieval/dates.py). Their text is read only for a query that names a time."""
    if not windows:
        return set()
    found = {n.key for n in candidates if within(n.created_at, windows)}
    others = {n.key: n for n in candidates if n.key not in found}
    for pk, content in Note.objects.filter(pk__in=list(others)).values_list("pk", "content"):
        if overlap(told_windows(content, others[str(pk)].created_at), windows):
            found.add(str(pk))
    return found


def pick(candidates: list[Candidate], limit: int, adjacent: Neighbours | None, span: int) -> list[Candidate]:
    """The ``limit`` matches, from candidates in rank order: a candidate inside an earlier match's
    surrounding turns is already shown there and is passed over. (A decay per match already taken
    from a session, as the recall bundle has, was tried here and gained nothing: LoCoMo
    conversations 0-3 R@10 0.837 against 0.838.)"""
    if adjacent is None:
        return candidates[:limit]
    inside: set[str] = set()
    chosen: list[Candidate] = []
    for note in candidates:
        if len(chosen) == limit:
            break
        if note.key not in inside:
            chosen.append(note)
            inside |= covered([note.key], adjacent, span)
    return chosen


@metrics.timed(metrics.SEARCH_SECONDS)
def search(
    query: str,
    agent: Agent,
    *,
    limit: int = 5,
    subject: str | None = None,
    topics_filter: Sequence[str] | None = None,
    explain: bool = False,
    heat: bool = True,
    links: bool = True,
    link_min_sim: float | None = None,
    ranking: Ranking = RANKING,
    query_vector: np.ndarray | None = None,
) -> list[Result]:
    """Top ``limit`` notes for ``query`` that ``agent`` may read, then notes linked to them.

    ``heat`` bumps the returned matches' retrieval counters; ``links`` walks the
    link graph (gate ``link_min_sim``, default from config; 0 switches it off);
    ``query_vector`` lets a batch evaluation embed its queries in one go.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string")
    # As long as a note may be: a 2 MB query cost seconds of CPU in tokenizing and embedding.
    if len(query) > get_config().max_note_chars:
        raise InvalidInput(f"query is {len(query)} characters; the limit is {get_config().max_note_chars}")
    check_storable(query, "query")
    if subject is not None:
        check_storable(subject, "subject")
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    topics = clean_topics(topics_filter)
    cfg = get_config()
    # Reads only read: dirty notes are the outbox drainer's (engine/index_sync/outbox.py), never a search's.
    store = runtime.store()
    collection = access.collection_for(agent)
    flt: IndexFilter = access.index_filter(agent, subject=subject).and_(*topics_conditions(topics))
    # Asking for more than exist just returns what exists, so no count round trip is needed.
    pool = ranking.pool(limit)
    # A query the dense model cannot read (Chinese on the English-only default: vote 0) is not
    # embedded at all: its vector ranks nothing, and on long Chinese queries embedding it was most
    # of a search's time. Without a vector the walk's relevance gate is off and similarity is 0.
    reads = ranking.dense_vote(query) > 0
    qvec = (query_vector if query_vector is not None else embed_query(query)) if reads else None
    terms = ranking.query_terms(query)
    dense, lexical, vote = ranking.legs(store, collection, query, qvec, terms, flt, pool)
    # Kept for the answer's ``rrf`` field (docs/api.md) whichever fusion ranks.
    rrf = rrf_fuse([[h.id for h in dense], [h.id for h in lexical]], cfg.rrf_k, weights=(vote, 1.0))
    fused, step = ranking.fuse(dense, lexical, terms, vote, pool, rrf)
    if not fused:
        return []

    # The database decides what may be shown, whatever the index still holds. Ranking reads a few
    # fields of up to two pools of notes (engine/retrieval/candidates.py); the matches are read
    # whole below.
    visible = visible_candidates(agent, list(fused), subject=subject)
    candidates = [n for n in visible if topics_allow(n, topics)]
    now = timezone.now()
    windows = named_windows(query, today=now.date()) if ranking.date_boost > 0 else []
    from_then = from_named_time(candidates, windows)
    dated = {n.key: ranking.date_boost if n.key in from_then else 0.0 for n in candidates}
    weight = ranking.heat_weight(cfg)
    # Heat only breaks (near-)ties: its bonus is below one step (engine/retrieval/heat.py).
    heats = {n.key: heat_bonus(n, now, weight, step) for n in candidates}
    # The forgetting-curve blend scales the fused score (engine/annotations/importance.py).
    forgetting = {n.key: 1.0 for n in candidates}
    blend = ranking.importance_blend(cfg)
    if blend > 0 and candidates:
        newest = max(n.created_at for n in candidates)
        for n in candidates:
            forgetting[n.key] = importance.forgetting_factor(n.importance, n.created_at, newest, blend)
    order = {note_id: i for i, note_id in enumerate(fused)}

    def score(note_id: str) -> float:
        return fused[note_id] * forgetting[note_id] + dated[note_id] + heats[note_id]

    scored = {n.key: score(n.key) for n in candidates}
    ranked = scored
    dense_cos = {h.id: h.score for h in dense}

    def cosine(n: Candidate) -> float:
        assert qvec is not None
        return dense_cos[n.key] if n.key in dense_cos else note_cosine(qvec, n)

    span = ranking.context_span
    lifting = ranking.link_lift > 0 and len(candidates) > 1
    # The links of the candidates, read once for the lift and the turns around the matches.
    rows = touching(list(scored)) if lifting or span > 0 else []
    if lifting:
        # The walk's relevance gate: a note far from the query is never lifted into the matches.
        # Without a query vector every candidate is a BM25 hit: lexically related to the query.
        relevant = {n.key for n in candidates if qvec is None or cosine(n) >= cfg.bfs_min_sim}
        shares = (ranking.link_lift, ranking.link_lift_far)
        ranked = lift(scored, link_paths(list(scored), rows), shares, relevant)
    candidates.sort(key=lambda n: (-ranked[n.key], order[n.key]))
    # What this store offers any note for this query (engine/retrieval/relevance.py): the first
    # candidates in rank order whatever ``limit`` is, so a match's relevance does not depend on it.
    usual = background([cosine(n) for n in candidates[:BACKGROUND_OF]]) if qvec is not None else 0.0
    # Which candidates lie near one another needs no read beyond the candidates' own links; the
    # turns around the matches, two turns out, need one more (engine/retrieval/surrounding.py).
    adjacent = neighbours([n.key for n in candidates], span, rows, read=False) if span > 0 else None
    picked = pick(candidates, limit, adjacent, span)
    whole = read_whole(picked)
    matches = [whole[n.key] for n in picked if n.key in whole]
    around: dict[str, list[Surrounding]] = {}
    if span > 0 and matches:
        keys = [str(n.pk) for n in matches]
        around = surrounding_of(agent, matches, neighbours(keys, span, rows), span, subject=subject)

    model = runtime.embedder().model_name if qvec is not None else None  # whose cosines these are
    dense_at = {h.id: (rank, h.score) for rank, h in enumerate(dense, start=1)}
    lexical_at = {h.id: (rank, h.score) for rank, h in enumerate(lexical, start=1)}
    results: list[Result] = []
    for note in matches:
        key = str(note.pk)
        # A dense hit keeps the store's score; a BM25-only hit gets its real cosine, never 0.
        similarity = dense_at[key][1] if key in dense_at else note_cosine(qvec, note) if qvec is not None else 0.0
        bm25 = lexical_at[key][1] if key in lexical_at else None
        how_relevant = relevance(terms, note.content, similarity, bm25, model=model, background=usual)
        result = Result(
            note,
            "match",
            similarity,
            ranked[key],
            rrf.get(key, 0.0),
            relevance=how_relevant,
            surrounding=around.get(key, []),
        )
        if explain:
            result.explain = {
                "dense_rank": dense_at.get(key, (None, None))[0],
                "dense_score": dense_at.get(key, (None, None))[1],
                "bm25_rank": lexical_at.get(key, (None, None))[0],
                "bm25_score": lexical_at.get(key, (None, None))[1],
                "rrf": rrf.get(key, 0.0),
                "fused": fused[key],
                "date": dated[key],
                "heat": heats[key],
                "score": scored[key],
                "lift": ranked[key] - scored[key],
                "hop": 0,
                "parent": None,
            }
        results.append(result)

    if links and cfg.bfs_hops > 0 and cfg.bfs_max_extra > 0 and matches:
        gate = cfg.bfs_min_sim if link_min_sim is None else link_min_sim
        shown = frozenset(str(c.note.pk) for found in around.values() for c in found)
        walked = walk_links(
            matches,
            qvec,
            agent,
            subject=subject,
            hops=cfg.bfs_hops,
            min_sim=gate,
            max_extra=cfg.bfs_max_extra,
            shown=shown,
            first=targets_of(rows, [str(n.pk) for n in matches]) if rows else None,
        )
        for linked in walked:
            how_relevant = relevance(terms, linked.note.content, linked.similarity, None, model=model, background=usual)
            result = Result(linked.note, "link", linked.similarity, 0.0, 0.0, relevance=how_relevant)
            if explain:
                result.explain = {
                    "similarity": linked.similarity,
                    "rrf": 0.0,
                    "fused": 0.0,
                    "hop": linked.hop,
                    "parent": linked.parent,
                }
            results.append(result)

    if heat and matches:
        bump_heat([n.pk for n in matches], now)
    return results


__all__ = ["RANKING", "Hit", "Ranking", "Result", "rrf_fuse", "search"]

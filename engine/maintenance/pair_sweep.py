"""The nightly contradiction sweep (job ``pair_sweep``): every new note triaged against its nearest notes.

Offline (provider ``none``) the pair judge decides what a person sees. With a model configured the
night's ranking decides which pairs the model reads: at most ``sweep_model_calls`` a night per agent
(``AMEM_SWEEP_MODEL_CALLS``), the likeliest change first (``_ask``); a contradiction it finds opens
a conflict it decided. ``contradiction_sweep``, which sends every note to the model in batches, is
run by hand.

The write path triages a new note only against the notes it resembles and its link
candidates (cosine ≥ 0.3); "I'm vegan." and "I eat eggs and cheese most days." can sit below
that, and a note typed as knowledge was once never compared at all. At night each active
memory or knowledge note changed since its last scan is compared, by its stored vector, with
its ``sweep_neighbours`` nearest notes of the agent — nearest by the stored vectors' cosine plus
the words they share (engine/maintenance/lexical.py), older note first; each newer note is then
weighed only beside the nearest of its older partners (``nearest_older``). No similarity floor:
on real stores nearly every such neighbour has a cosine above 0.35 while planted changes sit as
low as 0.36 (docs/benchmarks.md, "Review queues on real stores").
The pair judge (engine/judgments/triage.py) decides what a person sees:

* a likely change opens a conflict pair (``opened_by = "rules"``);
* a possible change, or one fact said twice, opens a merge pair with its guess and reason
  (unless the newer note already waits as the newer of a merge pair or in a conflict);

at most ``review_budget`` new cards per agent a night, the likeliest change first (the judge and the
change model, engine/judgments/change_note.py, read the pair and the newer note), and at most
one card per note a night (on a real store one long chat turn otherwise sat in nine cards); notes
whose pairs did not fit stay unscanned and are weighed again the next night, for at most
``sweep_window_days`` (14) from the first night it did not fit (``sweep_deferred_since``; a
change to the note starts it again): then the pair is dropped
(counted ``dropped``), so a store's backlog of pairs that never make the budget is not judged
every night forever. Nothing is merged, retired or cleared here.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
from django.db import transaction
from django.utils import timezone

from engine import runtime
from engine.annotations import pairs as pair_store
from engine.judgments import change_note, triage
from engine.maintenance import lexical, vectors
from engine.maintenance.runner import Step
from memories import access
from memories.models import Note, Pair, waiting_q

MARK_CHUNK = 500


def run(step: Step) -> None:
    llm = runtime.llm()
    model = llm if llm.conflict_scan_available else None
    agent_id = step.agent.pk
    notes = list(
        Note.objects.active()
        .filter(agent_id=agent_id, note_type__in=(Note.MEMORY, Note.KNOWLEDGE))
        .exclude(layer__in=("episode", "reflection"))
        .order_by("created_at", "pk")
    )
    kept, matrix = vectors.load(notes)
    fresh = [i for i, n in enumerate(kept) if n.conflict_scanned_at is None or n.conflict_scanned_at < n.updated_at]
    step.grow(len(fresh))
    if len(kept) < 2 or not fresh:
        return
    known = _known_pairs(agent_id)
    pairs: list[tuple[Note, Note, float, float]] = []  # older, newer, cosine, cosine plus shared words
    k = min(step.cfg.sweep_neighbours, len(kept) - 1)
    words = lexical.rows(kept)
    for i in fresh:
        step.advance()
        for j, cosine, near in neighbours(matrix, words, i, k):
            older, newer = in_time_order(kept[j], kept[i])
            if (older.pk, newer.pk) in known or not access.can_write(agent_id, older):
                continue
            known.add((older.pk, newer.pk))
            pairs.append((older, newer, cosine, near))
    found: list[triage.Triage] = []
    newer_of: dict[int, Note] = {}
    asking = set(Note.objects.filter(agent_id=agent_id).waiting(Pair.MERGE, as_newer=True).values_list("pk", flat=True))
    for older, newer, similarity in nearest_older(pairs):
        judged = triage.assess(older, newer.content, similarity, subjects=newer.subjects)
        # Offline only what the judge would show competes; a model reads any pair the judge weighed.
        competes = judged.action in (triage.CONFLICT, triage.ASK) or (model is not None and judged.guess is not None)
        if competes and not (judged.action == triage.ASK and newer.pk in asking):
            found.append(judged)
            newer_of[id(judged)] = newer
    found = _rank(step, found, newer_of)
    opened = calls = 0
    deferred: set[object] = set()
    carded: set[object] = set()  # notes in a card opened tonight
    for judged in found:
        newer = newer_of[id(judged)]
        assert judged.other is not None
        over = opened >= step.cfg.review_budget or (model is not None and calls >= step.cfg.sweep_model_calls)
        if over or {newer.pk, judged.other.pk} & carded:
            deferred.add(newer.pk)
            step.count("deferred")
            continue
        shown: bool | None
        if model is None:
            shown = _open(step, judged, newer)
        else:
            calls += 1
            shown = _ask(step, model, judged, newer)
            if shown is None:  # the call failed: weighed again next night, nothing acted on
                deferred.add(newer.pk)
                continue
        if shown:
            opened += 1
            carded |= {newer.pk, judged.other.pk}
    dropped = _drop_stale([kept[i] for i in fresh if kept[i].pk in deferred], step.cfg.sweep_window_days)
    if dropped:
        step.count("dropped", len(dropped))
    _stamp([kept[i] for i in fresh if kept[i].pk not in deferred or kept[i].pk in dropped])
    step.count("scanned", len(fresh))


def _drop_stale(deferred: list[Note], window_days: int) -> set[object]:
    """The deferred notes whose pair has missed the budget for ``window_days`` since it was first
    deferred (or since the note last changed): dropped, to be stamped as scanned, so they are
    neither judged nor read by the change model again until they change. The others are marked
    with the night they were first deferred."""
    now = timezone.now()
    # A mark older than the note's last change belongs to an earlier text: its window starts again.
    since = {
        n.pk: n.sweep_deferred_since
        for n in deferred
        if n.sweep_deferred_since and n.sweep_deferred_since >= n.updated_at
    }
    unmarked = [n.pk for n in deferred if n.pk not in since]
    for start in range(0, len(unmarked), MARK_CHUNK):  # a night may defer more notes than SQLite takes parameters
        Note.objects.filter(pk__in=unmarked[start : start + MARK_CHUNK]).update(sweep_deferred_since=now)
    return {pk for pk, at in since.items() if at <= now - timedelta(days=window_days)}


def _rank(step: Step, found: list[triage.Triage], newer_of: dict[int, Note]) -> list[triage.Triage]:
    """Tonight's pairs, the likeliest change first: by the judge and the change model together
    (engine/judgments/change_note.py), or by the judge alone with ``AMEM_CHANGE_MODEL=false``.

    The model reads at most ``change_note.READS_PER_NIGHT`` newer notes, those of the judge's
    likeliest pairs; a pair it did not read tonight ranks as if the model were undecided (a
    first night over an imported store of 100k notes would otherwise embed for half an hour).
    """
    change = {id(t): t.guess.change if t.guess else 0.0 for t in found}
    if not step.cfg.change_model or not found:
        return sorted(found, key=lambda t: -change[id(t)])
    read = sorted(found, key=lambda t: -change[id(t)])[: change_note.READS_PER_NIGHT]
    says = dict(zip(map(id, read), change_note.says_change([newer_of[id(t)].content for t in read]), strict=True))
    step.count("read_by_model", len(read))
    ranked = {id(t): change_note.ranking(change[id(t)], says.get(id(t), change_note.UNDECIDED)) for t in found}
    return sorted(found, key=lambda t: -ranked[id(t)])


def neighbours(matrix: np.ndarray, words, i: int, k: int) -> list[tuple[int, float, float]]:
    """Note ``i``'s ``k`` nearest notes: (index, stored cosine, nearness = cosine plus shared words)."""
    sims = matrix @ matrix[i]
    nearness = sims + lexical.similarities(words, i, len(matrix))
    nearness[i] = -np.inf
    return [(int(j), float(sims[j]), float(nearness[j])) for j in np.argpartition(-nearness, k - 1)[:k]]


def nearest_older(pairs: list[tuple[Note, Note, float, float]]) -> list[tuple[Note, Note, float]]:
    """Each newer note with only the nearest of its older partners tonight: (older, newer, cosine).

    A change is about the note it shares most with. On the fit store of real chat
    (docs/benchmarks.md, "Review queues on real stores"), 21 of the 28 planted changes among the
    sweep's pairs were their changed note's nearest; weighed against every neighbour, a changed
    note's one card a night went to a neighbour it does not change, and the judge's first 75
    cards held 5 planted changes; beside the nearest only, 10.
    """
    best: dict[object, tuple[float, int]] = {}
    for index, (_, newer, _, nearness) in enumerate(pairs):
        if newer.pk not in best or nearness > best[newer.pk][0]:
            best[newer.pk] = (nearness, index)
    return [pairs[index][:3] for _, index in best.values()]


def in_time_order(a: Note, b: Note) -> tuple[Note, Note]:
    return (a, b) if (a.created_at, str(a.pk)) <= (b.created_at, str(b.pk)) else (b, a)


def _known_pairs(agent_id: str) -> set[tuple[object, object]]:
    """Pairs a person has been shown (open or decided, either queue): never offered twice."""
    known: set[tuple[object, object]] = set()
    for a, b in Pair.objects.filter(newer__agent_id=agent_id).values_list("older_id", "newer_id"):
        known |= {(a, b), (b, a)}
    return known


def _open(step: Step, judged: triage.Triage, newer: Note) -> bool:
    older = judged.other
    assert older is not None and judged.guess is not None
    kind = Pair.CONFLICT if judged.action == triage.CONFLICT else Pair.MERGE
    with transaction.atomic():
        if kind == Pair.MERGE and not (
            Note.objects.filter(pk=newer.pk, revision=newer.revision)
            .exclude(waiting_q(Pair.MERGE, as_newer=True) | waiting_q(Pair.CONFLICT))
            .exists()
        ):
            step.count("changed_meanwhile")
            return False
        pair = pair_store.open_pair(
            older,
            newer,
            kind=kind,
            actor=step.actor,
            reason=f"offline: {judged.reason}" if kind == Pair.CONFLICT else judged.reason,
            guess=judged.verdict,
            likelihood=judged.guess.change,
            similarity=judged.similarity,
            opened_by="rules",
            model_version=triage.WEIGHTS_VERSION,
        )
    if kind == Pair.CONFLICT:
        step.count("pairs_found" if pair is not None else "pairs_known")
    else:
        step.count("pairs_asked" if pair is not None else "changed_meanwhile")
    return pair is not None


def _ask(step: Step, model, judged: triage.Triage, newer: Note) -> bool | None:
    """With a model configured: the model reads the pair. A contradiction it finds opens a conflict it
    decided (``opened_by = "model"``, its reason; ``AMEM_CONFLICT_MODE=auto`` also retires the side it
    names superseded); when it finds none, a pair the judge only asked about waits as the offline
    sweep would leave it (the pending-merge job's model reads it), and a likely change of the rules
    opens nothing (the pair is recorded as read, never asked about again). True when a card opened,
    False when none did, None when the call failed."""
    older = judged.other
    assert older is not None and judged.guess is not None
    findings, ok = step.llm(
        "conflict_scan", lambda: model.conflict_scan([older.content, newer.content], agent_id=step.agent.pk)
    )
    if not ok:
        return None
    if not findings:
        step.count("model_found_none")
        if judged.action == triage.ASK:
            return _open(step, judged, newer)
        with transaction.atomic():
            pair_store.read_by_model(older, newer, actor=step.actor, similarity=judged.similarity)
        return False
    finding = findings[0]
    with transaction.atomic():
        pair, retired = pair_store.model_conflict(
            older,
            newer,
            reason=finding.reason,
            superseded=(older, newer)[finding.superseded] if finding.superseded is not None else None,
            actor=step.actor,
            auto=(step.options.get("mode") or step.cfg.conflict_mode) == "auto",
            likelihood=judged.guess.change,
            similarity=judged.similarity,
        )
    step.count("pairs_found" if pair is not None else "pairs_known")
    if retired:
        step.count("retired")
    return pair is not None


def _stamp(notes: list[Note]) -> None:
    stamp = timezone.now()
    for note in notes:
        # Only notes unchanged since they were read: a changed one is judged again next time.
        Note.objects.filter(pk=note.pk, revision=note.revision).update(
            conflict_scanned_at=stamp, sweep_deferred_since=None
        )

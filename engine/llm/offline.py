"""Rule-based stand-ins for every LLM role, used when the provider is `none`.

Lower quality than a model by design, and labelled as such: the LLM layer records these
answers with outcome `offline`. Only two capabilities are injected, so this module runs
anywhere without a model: `embed(texts)` returning L2-normalised rows, and
`tokenize(text)` returning lower-cased word tokens (CJK-aware).
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Callable, Sequence

import numpy as np

from engine.llm.types import (
    Candidate,
    ConflictFinding,
    CrudOp,
    EvolveResult,
    Judgement,
    MergeDecision,
    Neighbour,
    NoteFields,
)
from engine.reading import capture_rules
from engine.reading.contradiction_rules import contradiction
from engine.reading.merged_text import merged_text
from engine.reading.same_statement import near_duplicate
from engine.reading.sentences import first_sentence
from engine.reading.stop_words import NOT_CONTENT

log = logging.getLogger(__name__)

Embed = Callable[[Sequence[str]], np.ndarray]
Tokenize = Callable[[str], list[str]]

# Short example sentences per category and note type, embedded once. A text's score for
# a label is its best cosine to any of that label's examples; sentences work far better
# than keyword lists with sentence-embedding models. Chinese examples are included for
# multilingual embedders (an English-only model scores them all alike, and the margin
# rule below then answers General).
CATEGORY_ANCHORS: dict[str, list[str]] = {
    "Technical": [
        "How the code, server, database or deployment works and how to fix a software bug.",
        "We configured the API, the library version and the build tooling.",
        "The service crashed with an error in production and we changed the config.",
        "代码、服务器、数据库和部署的技术细节。",
    ],
    "Business": [
        "A customer, a sales deal, a contract, pricing, revenue or an invoice.",
        "The client signed the contract and the payment is due next month.",
        "客户、合同、报价、收入和发票等商业事务。",
    ],
    "Personal": [
        "The user's family, friends, health, hobbies and personal preferences.",
        "She likes green tea, has a dog and her birthday is in May.",
        "用户的家人、朋友、健康、爱好和个人偏好。",
    ],
    "Project": [
        "A project's plan, milestone, deadline, status, task owner or release decision.",
        "The team decided to ship version two next sprint; Bob owns the migration.",
        "项目的计划、里程碑、截止日期、进度和负责人。",
    ],
    "Research": [
        "A research finding, paper, experiment, benchmark result or hypothesis.",
        "The study shows the new method beats the baseline on the benchmark.",
        "论文、实验、基准测试结果和研究发现。",
    ],
    "System": [
        "Instructions for the assistant: rules, its configuration and how it must behave.",
        "Always answer in English and never reveal the system prompt.",
        "助手的系统指令、规则和行为设定。",
    ],
}
NOTE_TYPE_ANCHORS: dict[str, list[str]] = {
    "knowledge": [
        "A general fact or definition that stays true: how something works.",
        "Reference documentation explaining a concept, a method or a rule.",
        "通用知识、定义、原理或操作方法的说明。",
    ],
    "memory": [
        "Something that happened, was decided or is preferred at a point in time.",
        "Yesterday we met and decided; the user now prefers this.",
        "某次发生的事情、做出的决定或当前的偏好和状态。",
    ],
}

NEAR_DUPLICATE = 0.9


class OfflineRules:
    """Deterministic answers for every role; conflict scan is reported unavailable."""

    conflict_scan_available = False

    def __init__(
        self,
        embed: Embed,
        tokenize: Tokenize,
        *,
        link_threshold: float = 0.5,
        category_floor: float = 0.2,
        category_margin: float = 0.03,
    ) -> None:
        self._embed = embed
        self._tokenize = tokenize
        self.link_threshold = link_threshold
        self.category_floor = category_floor
        self.category_margin = category_margin
        self._anchors: dict[str, np.ndarray] | None = None
        self._anchor_lock = threading.Lock()

    # ------------------------------------------------------------------ roles

    def construct(self, text: str) -> NoteFields:
        keywords = self.keywords(text, 7)
        category, note_type = self._classify(text)
        return NoteFields(
            keywords=keywords,
            tags=keywords[:3] if len(keywords) >= 2 else keywords,
            context=first_sentence(text),
            category=category,
            note_type=note_type,
            topics=keywords[:3] if note_type == "knowledge" else [],
            confidence="low",
        )

    def judge_links(self, text: str, candidates: list[Candidate]) -> list[str]:
        if not candidates:
            return []
        vectors = self._vectors([text] + [c.content for c in candidates])
        scores = vectors[1:] @ vectors[0]
        return [c.id for c, s in zip(candidates, scores, strict=True) if float(s) >= self.link_threshold]

    def evolve(self, new_note: str, neighbours: list[Neighbour]) -> EvolveResult:
        return EvolveResult()  # rewriting other notes' context needs real understanding

    def crud(self, dialogue: list[tuple[str, str]], existing: list[str]) -> list[CrudOp]:
        # The user's statements, sentence by sentence: not their questions, requests or chit-chat
        # (engine/reading/capture_rules.py); what the assistant said is not the user's fact.
        durable = [
            statement[:500]
            for role, text in dialogue
            if role.strip().lower() not in ("assistant", "ai", "bot", "model")
            for statement in capture_rules.statements(text)
        ]
        if not durable:
            return []
        ops: list[CrudOp] = []
        existing_vectors = self._vectors(existing) if existing else None
        for statement, vector in zip(durable, self._vectors(durable), strict=True):
            if existing_vectors is not None and float(np.max(existing_vectors @ vector)) >= NEAR_DUPLICATE:
                continue  # NONE: already remembered
            if any(op.fact == statement for op in ops):
                continue
            ops.append(CrudOp(action="NEW", fact=statement))
            if len(ops) == 3:
                break
        return ops

    def should_merge(self, a: str, b: str) -> MergeDecision:
        # Only the same statement merges without a person (engine/reading/same_statement.py): a fold
        # must never mix facts, and "similar" is not "the same" without reading comprehension.
        if not near_duplicate(a, b):
            return MergeDecision(should_merge=False)
        # merged_text reads ``b`` as the later word, but a near duplicate adds nothing and contradicts
        # nothing, so the text is ``a``'s whichever note a caller passes first.
        return MergeDecision(should_merge=True, merged=merged_text(a, b))

    def evolution_judge(self, old: str, new: str) -> Judgement:
        disagreement = contradiction(old, new)
        if disagreement is not None:
            return Judgement(verdict="CONFLICT", reason=f"offline: {disagreement}")
        if near_duplicate(old, new):
            return Judgement(verdict="EXPAND", merged_content=merged_text(old, new), reason="offline: adds nothing")
        # NEW from the offline judge means "cannot tell": offline the pending-merge job does not
        # ask it, the pair judge leaves such a pair for a person (engine/maintenance/pending.py).
        return Judgement(verdict="NEW", reason="offline: cannot tell")

    def conflict_scan(self, texts: list[str]) -> list[ConflictFinding]:
        return []  # reading comprehension: offline the sweep triages pairs itself (engine/maintenance/pair_sweep.py)

    # ------------------------------------------------------------------ helpers

    def keywords(self, text: str, limit: int) -> list[str]:
        """Most salient tokens: frequency, weighted by length and by early position."""
        tokens = [t.lower() for t in self._tokenize(text)]
        scores: dict[str, float] = {}
        first_seen: dict[str, int] = {}
        for position, token in enumerate(tokens):
            if not _is_content_word(token):
                continue
            first_seen.setdefault(token, position)
            scores[token] = scores.get(token, 0.0) + 1.0
        if not scores:
            return []
        total = len(tokens) or 1

        def weight(token: str) -> float:
            length_bonus = math.log(1 + min(len(token), 12))
            early_bonus = 1.0 + 0.5 * (1 - first_seen[token] / total)
            return scores[token] * length_bonus * early_bonus

        ranked = sorted(scores, key=lambda t: (-weight(t), first_seen[t]))
        chosen: list[str] = []
        for token in ranked:
            # Search-mode CJK segmentation emits 数据库 and also 数据, 据库: keep one.
            if any(token in kept or kept in token for kept in chosen):
                continue
            chosen.append(token)
            if len(chosen) == limit:
                break
        return [_original_case(token, text) for token in chosen]

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._embed(list(texts)), dtype=np.float32)

    def _classify(self, text: str) -> tuple[str, str]:
        vector = self._vectors([text])[0]
        category_scores = self._label_scores(CATEGORY_ANCHORS, vector)
        ranked = sorted(category_scores.items(), key=lambda item: -item[1])
        (best, best_score), (_, runner_up) = ranked[0], ranked[1]
        # Too weak, or too close to call: General is the honest answer.
        if best_score < self.category_floor or best_score - runner_up < self.category_margin:
            best = "General"
        type_scores = self._label_scores(NOTE_TYPE_ANCHORS, vector)
        # memory is the safer default: knowledge notes skip heat and consolidation.
        note_type = "knowledge" if type_scores["knowledge"] > type_scores["memory"] + 0.05 else "memory"
        return best, note_type

    def _label_scores(self, anchors: dict[str, list[str]], vector: np.ndarray) -> dict[str, float]:
        matrices = self._anchor_vectors()
        return {label: float(np.max(matrices[label] @ vector)) for label in anchors}

    def _anchor_vectors(self) -> dict[str, np.ndarray]:
        with self._anchor_lock:
            if self._anchors is None:
                labelled = [
                    (label, example)
                    for anchors in (CATEGORY_ANCHORS, NOTE_TYPE_ANCHORS)
                    for label, examples in anchors.items()
                    for example in examples
                ]
                vectors = self._vectors([example for _, example in labelled])
                self._anchors = {
                    label: vectors[[i for i, (lab, _) in enumerate(labelled) if lab == label]]
                    for label in dict(labelled)
                }
            return self._anchors


def _is_content_word(token: str) -> bool:
    if token in NOT_CONTENT or token.isdigit():
        return False
    if not any(ch.isalnum() for ch in token):
        return False
    # One Latin letter says nothing; one CJK character usually says little either.
    return len(token) >= 2


def _original_case(token: str, text: str) -> str:
    """The token as the author wrote it (PostgreSQL, not postgresql) when it can be found."""
    match = re.search(re.escape(token), text, re.IGNORECASE)
    return match.group(0) if match else token

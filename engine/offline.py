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

from engine.llm_types import (
    Candidate,
    ConflictFinding,
    CrudOp,
    EvolveResult,
    Judgement,
    MergeDecision,
    Neighbour,
    NoteFields,
)

log = logging.getLogger(__name__)

Embed = Callable[[Sequence[str]], np.ndarray]
Tokenize = Callable[[str], list[str]]

# Short descriptions embedded once; a text gets the category it is most similar to.
# Both languages in one anchor so a multilingual embedder matches either.
CATEGORY_ANCHORS: dict[str, str] = {
    "Technical": "software code programming bug server database api deploy tool library "
    "configuration error 代码 编程 服务器 数据库 接口 部署 技术",
    "Business": "business customer client sales revenue price contract market invoice budget "
    "company 客户 销售 收入 价格 合同 市场 预算 公司",
    "Personal": "personal life family friend health hobby preference likes dislikes home pet "
    "birthday food 个人 生活 家人 朋友 健康 爱好 喜欢 宠物",
    "Project": "project plan milestone deadline status task roadmap release sprint decision "
    "team 项目 计划 里程碑 截止 进度 任务 发布 决定",
    "Research": "research study paper experiment result hypothesis analysis finding benchmark "
    "data 研究 论文 实验 结果 假设 分析 发现",
    "System": "agent system instruction rule configuration assistant behaviour prompt policy "
    "setting 助手 系统 指令 规则 配置 设定",
}
NOTE_TYPE_ANCHORS: dict[str, str] = {
    "knowledge": "definition how to explanation reference fact concept documentation "
    "general rule always 定义 方法 原理 说明 概念 文档",
    "memory": "today yesterday last week decided i we prefer happened meeting plan now "
    "currently 今天 昨天 上周 决定 我 我们 喜欢 发生 会议 现在",
}

STOP_WORDS: frozenset[str] = frozenset(
    """
    a an the and or but if then else of to in on at by for with from as is are was were be
    been being am do does did have has had i me my we our you your he she it its they them
    their this that these those there here what which who whom how why when where not no yes
    so too very can could should would will just also than about into over under again more
    most some any all each other such only own same up down out off s t don now
    的 了 是 在 和 与 及 或 也 就 都 而 又 把 被 对 从 向 给 让 我 你 他 她 它 我们 你们
    他们 这 那 这个 那个 一个 有 没有 不 吗 呢 吧 啊 呀 很 还 要 会 能 可以 已经 因为 所以
    但是 如果 然后
    """.split()
)
CHITCHAT: frozenset[str] = frozenset(
    "hi hello hey thanks thank ok okay bye 好 嗯 明白 收到 好的 知道了 了解 谢谢 谢 再见 你好".split()
)
EPHEMERAL_RE = re.compile(
    r"\b(todo tomorrow|pending confirmation|right now|in a minute|later today)\b|待跑|等确认|明天完成",
    re.IGNORECASE,
)
QUESTION_RE = re.compile(
    r"[?？]\s*$|^(what|why|how|when|where|who|which|can|could|would|is|are|do|does)\b",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")

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
    ) -> None:
        self._embed = embed
        self._tokenize = tokenize
        self.link_threshold = link_threshold
        self.category_floor = category_floor
        self._anchors: tuple[list[str], np.ndarray, list[str], np.ndarray] | None = None
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
        statements = [
            " ".join(text.split())[:500]
            for role, text in dialogue
            if role.strip().lower() not in ("assistant", "ai", "bot", "model")
        ]
        durable = [s for s in statements if looks_durable(s)]
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
        return MergeDecision(should_merge=True, merged=keep_both(a, b))

    def evolution_judge(self, old: str, new: str) -> Judgement:
        vectors = self._vectors([old, new])
        similarity = float(vectors[0] @ vectors[1])
        if similarity >= NEAR_DUPLICATE:
            return Judgement(
                verdict="EXPAND",
                merged_content=keep_both(old, new),
                reason=f"offline: cosine {similarity:.2f}, both sentences kept",
            )
        return Judgement(verdict="NEW", reason=f"offline: cosine {similarity:.2f}")

    def conflict_scan(self, texts: list[str]) -> list[ConflictFinding]:
        return []  # contradictions need reading comprehension; the sweep reports unavailable

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
        return ranked[:limit]

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._embed(list(texts)), dtype=np.float32)

    def _classify(self, text: str) -> tuple[str, str]:
        names, category_vectors, types, type_vectors = self._anchor_vectors()
        vector = self._vectors([text])[0]
        category_scores = category_vectors @ vector
        best = int(np.argmax(category_scores))
        category = names[best] if float(category_scores[best]) >= self.category_floor else "General"
        type_scores = type_vectors @ vector
        # memory is the safer default: knowledge notes skip heat and consolidation.
        knowledge = float(type_scores[types.index("knowledge")])
        memory = float(type_scores[types.index("memory")])
        note_type = "knowledge" if knowledge > memory + 0.05 else "memory"
        return category, note_type

    def _anchor_vectors(self) -> tuple[list[str], np.ndarray, list[str], np.ndarray]:
        with self._anchor_lock:
            if self._anchors is None:
                names = list(CATEGORY_ANCHORS)
                types = list(NOTE_TYPE_ANCHORS)
                vectors = self._vectors([CATEGORY_ANCHORS[n] for n in names] + [NOTE_TYPE_ANCHORS[t] for t in types])
                self._anchors = (names, vectors[: len(names)], types, vectors[len(names) :])
            return self._anchors


def _is_content_word(token: str) -> bool:
    if token in STOP_WORDS or token.isdigit():
        return False
    if not any(ch.isalnum() for ch in token):
        return False
    # One Latin letter says nothing; one CJK character usually says little either.
    return len(token) >= 2


def first_sentence(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    sentence = _SENTENCE_END_RE.split(flat, maxsplit=1)[0] if flat else ""
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END_RE.split(" ".join(text.split())) if s.strip()]


def keep_both(a: str, b: str) -> str:
    """A followed by the sentences of B that A does not already contain."""
    a_clean = " ".join(a.split())
    seen = {_norm(s) for s in sentences(a_clean)}
    extra = [s for s in sentences(b) if _norm(s) not in seen]
    return " ".join([a_clean, *extra]).strip() if a_clean else " ".join(extra)


def looks_durable(statement: str) -> bool:
    """Worth remembering by rule: long enough, not a question, not chit-chat or ephemeral."""
    text = statement.strip()
    if len(text) < 10 or QUESTION_RE.search(text) or EPHEMERAL_RE.search(text):
        return False
    words = re.findall(r"\w+", text.lower())
    return not (words and all(w in CHITCHAT or w in STOP_WORDS for w in words))


def _norm(sentence: str) -> str:
    return re.sub(r"[\W_]+", "", sentence.lower())

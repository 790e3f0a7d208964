"""A note reader probed for issue 40's low-quality target, not in the product: E5 fine-tuned whole.

    .venv/bin/python -m bench.curation.note_reader --out /tmp/note-reader     # ~30 min on 2 cores

The quality model in the product (engine/judgments/note_quality.py) is a logistic head on E5's
frozen ``query:`` vector. Here the same encoder (rebuilt in torch by bench/curation/e5_torch.py,
word vectors frozen) is fine-tuned with its head on the same rows: the fit split's real notes
(bench/curation/sets/real q1, q2, q8–q13), positive = any label but ``fine``; two epochs, seeds fixed.

* **The threshold** is chosen as the product's is: leaving one source out at a time (LoCoMo,
  KdConv, ESConv, SMILE: a model fitted on the other three), the likelihood above which 3 % of the
  left-out fine notes lie, over all four sources' left-out predictions; each source's left-out area
  under the ROC curve is printed.
* **Then** one model on the whole fit split, read once on the held notes (q3–q7, as
  ``python -m bench.curation.fit_quality`` reports the product's model): recall of the notes that
  are not fine and the share of fine notes flagged, per file and over the held split.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation import sets
from bench.curation.fit_quality import SOURCE, TARGET_FINE_FLAGGED, flag_at
from bench.curation.quality_real import SPLIT

REAL = sets.SETS / "real"
TOKENS, BATCH, EPOCHS, LR, SEED = 128, 32, 2, 4e-5, 0


class NoteReader:
    def __init__(self) -> None:
        import torch

        from bench.curation.e5_torch import encoder

        torch.set_num_threads(2)
        torch.manual_seed(SEED)
        self.torch = torch
        self.encoder, self.vocabulary = encoder()
        self.head = torch.nn.Linear(384, 1)
        self.drop = torch.nn.Dropout(0.1)
        self.mode(training=False)

    def mode(self, training: bool) -> None:
        """Dropout on only while training (a module built by hand starts in training mode)."""
        for module in (self.encoder, self.head, self.drop):
            module.train(training)

    def tokens(self, text: str) -> list[int]:
        v = self.vocabulary
        return [v.bos, *v.ids("query: " + text, TOKENS), v.eos]

    def batch(self, seqs: list[list[int]]):
        from bench.curation.e5_torch import padded

        return padded(seqs, self.vocabulary.pad)

    def logits(self, ids, mask):
        from bench.curation.e5_torch import mean_pool

        return self.head(self.drop(mean_pool(self.encoder, ids, mask)))[:, 0]

    def train(self, texts: list[str], labels: np.ndarray) -> None:
        torch = self.torch
        rng = np.random.default_rng(SEED)
        seqs = [self.tokens(t) for t in texts]
        y = torch.tensor(labels, dtype=torch.float32)
        body = [p for p in self.encoder.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(
            [{"params": body, "lr": LR}, {"params": self.head.parameters(), "lr": LR * 10}], weight_decay=0.01
        )
        steps = EPOCHS * ((len(seqs) + BATCH - 1) // BATCH)
        warm = steps // 10
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm)))
        )
        self.mode(training=True)
        started = time.monotonic()
        for epoch in range(EPOCHS):
            order = rng.permutation(len(seqs))
            for i in range(0, len(order), BATCH):
                group = order[i : i + BATCH]
                ids, mask = self.batch([seqs[j] for j in group])
                loss = torch.nn.functional.binary_cross_entropy_with_logits(self.logits(ids, mask), y[group])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
            print(f"  epoch {epoch + 1}/{EPOCHS}: {time.monotonic() - started:.0f} s", flush=True)
        self.mode(training=False)

    def likelihoods(self, texts: list[str]) -> np.ndarray:
        seqs = [self.tokens(t) for t in texts]
        order = np.argsort([len(s) for s in seqs], kind="stable")
        out = np.zeros(len(seqs))
        self.mode(training=False)
        with self.torch.no_grad():
            for i in range(0, len(order), BATCH * 2):
                group = order[i : i + BATCH * 2]
                out[group] = self.torch.sigmoid(self.logits(*self.batch([seqs[j] for j in group]))).numpy()
        return out


def notes(name: str) -> list[dict]:
    return sets.read_jsonl(REAL / f"{name}-notes.jsonl")


def main(argv: list[str] | None = None) -> int:
    from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="where the report is written")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    rows = [r for name in SOURCE for r in notes(name)]
    texts = [r["text"] for r in rows]
    source = np.array([SOURCE[r["id"].split("-")[0]] for r in rows])
    y = np.array([r["label"] != "fine" for r in rows], dtype=int)
    left_out = np.zeros(len(rows))
    report: dict[str, object] = {}
    for name in sorted(set(source)):
        out = source == name
        reader = NoteReader()
        reader.train([t for t, o in zip(texts, out, strict=True) if not o], y[~out])
        left_out[out] = reader.likelihoods([t for t, o in zip(texts, out, strict=True) if o])
        report[f"left out {name}: AUC"] = round(float(roc_auc_score(y[out], left_out[out])), 3)
        print(f"left out {name}: AUC {report[f'left out {name}: AUC']}", flush=True)
    threshold = flag_at(left_out, y.astype(bool))  # the product's rule (fit_quality.py)
    report["flag at"] = round(threshold, 4)
    print(f"flag at {threshold:.4f} ({TARGET_FINE_FLAGGED:.0%} of the left-out fine notes above)", flush=True)

    reader = NoteReader()
    reader.train(texts, y)
    caught = flagged_fine = bad = fine = 0
    for name in (name for name, split in SPLIT.items() if split == "held"):
        held = notes(name)
        p = reader.likelihoods([r["text"] for r in held])
        not_fine = np.array([r["label"] != "fine" for r in held])
        auc = roc_auc_score(not_fine, p) if 0 < not_fine.sum() < len(held) else None
        report[name] = {
            "not fine": int(not_fine.sum()),
            "recall": round(float((p[not_fine] >= threshold).mean()), 3) if not_fine.any() else None,
            "fine flagged": round(float((p[~not_fine] >= threshold).mean()), 3),
            "AUC": round(float(auc), 3) if auc is not None else None,
        }
        print(f"{name}: {report[name]}", flush=True)
        caught += int((p[not_fine] >= threshold).sum())
        bad += int(not_fine.sum())
        flagged_fine += int((p[~not_fine] >= threshold).sum())
        fine += int((~not_fine).sum())
    report["held"] = {"recall": round(caught / bad, 3), "fine flagged": round(flagged_fine / fine, 3)}
    print(f"held: {report['held']}", flush=True)
    (args.out / "report.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

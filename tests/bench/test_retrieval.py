"""python -m bench locomo on a slice of the real LoCoMo data: the benchmark runs end to end and finds the evidence."""

from __future__ import annotations

import re
from io import StringIO

import pytest

from bench.data import data_dir
from bench.retrieval import main as bench
from memories.models import Link, Note

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# The public benchmark data are not in the repository: $AMEM_BENCH_DATA names their folder.
DATA = data_dir() if (data_dir() / "locomo10.json").exists() else None


@pytest.mark.skipif(DATA is None, reason="no LoCoMo data: set AMEM_BENCH_DATA to the folder holding locomo10.json")
def test_locomo_first_session_of_one_conversation(store):
    out = StringIO()
    bench(
        [
            "locomo",
            "--here",
            "--data",
            str(DATA),
            "--conversations",
            "1",
            "--sessions",
            "1",
            "--only",
            "bm25,rrf,full",
        ],
        stdout=out,
        stderr=StringIO(),
    )
    text = out.getvalue()
    # Ingest went through the conversation path: contexts and adjacent links exist.
    assert Note.objects.exclude(context="").exists() and Link.objects.exists()
    row = re.search(
        r"\| full pipeline \| \*\*all\*\* \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", text
    )
    assert row, text
    questions, (r1, r5, r10, r20) = int(row[1]), map(float, row.groups()[1:])
    assert questions > 0
    assert r1 <= r5 <= r10 <= r20
    # One short session: the evidence turn is nearly always among the first ten.
    assert r10 >= 0.6


@pytest.mark.skipif(DATA is None, reason="no LoCoMo data: set AMEM_BENCH_DATA to the folder holding locomo10.json")
def test_keep_data_ingests_once_and_starts_every_run_cold(store, tmp_path):
    args = ["locomo", "--here", "--data", str(DATA), "--conversations", "1", "--sessions", "1"]
    args += ["--keep-data", str(tmp_path)]
    bench([*args, "--only", "heated"], stdout=StringIO(), stderr=StringIO())
    stored = set(Note.objects.values_list("pk", flat=True))
    assert stored and Note.objects.filter(retrieval_count__gt=0).exists()  # the heated pass heated

    out = StringIO()
    bench([*args, "--only", "full"], stdout=out, stderr=StringIO())
    # The second run searched the first run's notes (nothing ingested again), cold: the first
    # run's heat was forgotten and the unheated probes heated nothing.
    assert set(Note.objects.values_list("pk", flat=True)) == stored
    assert not Note.objects.filter(retrieval_count__gt=0).exists()
    assert "| full pipeline | **all** |" in out.getvalue()

"""The benchmark readers: LoCoMo dates, evidence repair, the official turn text."""

from __future__ import annotations

import datetime as dt

from bench.data import normalize_evidence, parse_session_date, turn_text


def test_a_locomo_session_date_becomes_an_aware_datetime():
    assert parse_session_date("1:56 pm on 8 May, 2023") == dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    assert parse_session_date("12:04 am on 1 January, 2024").hour == 0


def test_malformed_evidence_is_repaired_and_junk_dropped():
    raw = ["D8:6; D9:17", "D9:1 D4:4", "D:11:26", "D30:05", "D"]
    assert normalize_evidence(raw) == ["D8:6", "D9:17", "D9:1", "D4:4", "D11:26", "D30:5"]


def test_a_turn_reads_as_the_official_dialog_rag_text():
    plain = {"speaker": "Caroline", "text": "I went to a support group."}
    assert turn_text(plain) == 'Caroline said, "I went to a support group."'
    shared = dict(plain, blip_caption="a photo of a rainbow flag")
    assert turn_text(shared) == 'Caroline said, "I went to a support group." and shared a photo of a rainbow flag'

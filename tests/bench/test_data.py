"""The benchmark readers: LoCoMo dates, evidence repair, the official turn text."""

from __future__ import annotations

import datetime as dt
import json

from bench.data import load_realtalk, normalize_evidence, parse_session_date, realtalk_evidence, turn_text


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


def testrealtalk_evidence_is_split_stripped_and_its_ranges_expanded():
    raw = ["D5:3.", "D1:11; D3:18", "D12:3-D12:5", "D 2:18", "", "D58"]
    assert realtalk_evidence(raw) == ["D5:3", "D1:11", "D3:18", "D12:3", "D12:4", "D12:5", "D2:18"]


def test_a_realtalk_turn_is_named_by_its_session_not_its_day(tmp_path):
    chat = {
        "name": {"speaker_1": "Emi", "speaker_2": "Elise"},
        "session_1": [{"clean_text": "Hi!", "speaker": "Emi", "date_time": "29.12.2023, 22:42:04", "dia_id": "D1:1"}],
        "session_1_date_time": "29.12.2023, 22:42:04",
        # Day 1 goes on in session 2.
        "session_2": [
            {"clean_text": "I ski.", "speaker": "Elise", "date_time": "30.12.2023, 09:00:00", "dia_id": "D1:2"}
        ],
        "session_2_date_time": "30.12.2023, 09:00:00",
        "qa": [
            {"question": "Does Elise ski?", "answer": "yes", "evidence": ["D1:2"], "category": 1},
            {"question": "Lost?", "answer": "?", "evidence": ["D9:9"], "category": 2},
        ],
    }
    (tmp_path / "Chat_1_Emi_Elise.json").write_text(json.dumps(chat))
    [conversation] = load_realtalk(tmp_path)
    assert [t.dia_id for t in conversation.turns] == ["S1:D1:1", "S2:D1:2"]
    assert conversation.turns[1].occurred_at == dt.datetime(2023, 12, 30, 9, tzinfo=dt.UTC)
    # A question whose evidence names no kept turn is left out.
    assert [(q.text, q.gold) for q in conversation.questions] == [("Does Elise ski?", frozenset({"S2:D1:2"}))]

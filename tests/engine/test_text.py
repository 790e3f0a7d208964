import pytest

from engine.errors import InvalidInput, QualityRejected
from engine.text import check_content, content_hash, embedding_text, weighted_length

LIMITS = {"min_chars": 4, "max_chars": 20_000}


def test_fewer_than_four_letters_or_digits_are_rejected_with_a_reason():
    with pytest.raises(QualityRejected, match="quality"):
        check_content("ok!", **LIMITS)


def test_spaces_and_punctuation_carry_nothing():
    with pytest.raises(QualityRejected):
        check_content("   ?? ... ok   ", **LIMITS)


@pytest.mark.parametrize("text", ["Mia is 7.", "我住在上海。", "我不吃香菜。", "好的", "Tom 42"])
def test_short_facts_pass_the_gate_chinese_included(text):
    assert check_content(text, **LIMITS).text == text


def test_a_normal_sentence_is_accepted_and_not_ephemeral():
    checked = check_content("  The deploy runs every Friday at noon.  ", **LIMITS)
    assert checked.text == "The deploy runs every Friday at noon."
    assert not checked.ephemeral


@pytest.mark.parametrize("text", ["脚本待跑，稍后确认结果是否正常", "Release notes: TODO tomorrow after the review"])
def test_signal_words_mark_a_note_ephemeral(text):
    assert check_content(text, **LIMITS).ephemeral


def test_a_cjk_character_counts_three():
    assert weighted_length("我住在上海。") == 15 and weighted_length("Mia is 7.") == 6
    with pytest.raises(QualityRejected):
        check_content("好", **LIMITS)


@pytest.mark.parametrize(
    "bad, message",
    [
        (b"\xff\xfe not utf-8 at all", "UTF-8"),
        ("bell\x07 inside a sentence", "control"),
        ("lone \ud800 surrogate in text", "UTF-8"),
        ("x" * 1_000_000, "limit"),
        (42, "string"),
    ],
)
def test_malformed_text_is_invalid_input(bad, message):
    with pytest.raises(InvalidInput, match=message):
        check_content(bad, **LIMITS)


def test_newlines_and_tabs_are_allowed():
    assert check_content("line one\n\tline two", **LIMITS).text


def test_l1_hash_ignores_case_width_and_spacing():
    assert content_hash("Uses  Qdrant\nfor vectors") == content_hash("uses qdrant for VECTORS")
    assert content_hash("uses qdrant") != content_hash("uses postgres")


def test_embedding_text_joins_content_keywords_tags_and_context():
    assert embedding_text("c", ["k1", "k2"], ["t"], "ctx") == "c k1 k2 t ctx"
    assert embedding_text("only content") == "only content"

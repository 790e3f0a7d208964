"""What the machine thought, in words a person reads: guesses, who found a pair, why a note was flagged.

The curation jobs store codes (a pair's ``guess`` and ``opened_by``, ``low_quality_reasons``) and,
since they explain themselves, a reason in plain words (a pair's ``reason``).
Pairs flagged before that (no guess, nobody named as the finder) carry a rule's shorthand with
stemmed tokens ("negation: … bookkeep dayton famili"); the cards show what differs instead.
"""

from __future__ import annotations

from engine.config import get_config
from memories.models import Pair

GUESSES = {
    "same": "Same fact said twice?",
    "change": "The newer may replace the older?",
    "both": "Both true?",
}
# The decision each guess points to (the card's first button).
GUESSED_DECISION = {"same": "same", "change": "replace", "both": "both"}
FOUND_BY = {
    "rules": "found by rules",
    "write": "found when it was written",
    "import": "imported",
    "facts": "found when a single-valued fact changed",
    "model": "decided by the model",
}
DECISIONS = {
    "same": "Same fact",
    "replace": "Newer replaces older",
    "both": "Both true",
    "unrelated": "Not related",
}
DECISION_KEYS = {"same": "s", "replace": "n", "both": "b", "unrelated": "d"}


def quality_reason(code: str) -> str:
    """Why the quality scan flagged a note, as a sentence."""
    cfg = get_config()
    words = {
        "too_short": f"Too short to say anything on its own (under {cfg.quality_min_chars} characters).",
        "vague": "Vague: it points at something without saying what (no name, number or other content word).",
        "gibberish": "Not words: no letters, one word repeated, or mostly strings that are not words.",
        "fragment": "Cut off mid-sentence.",
        "little_to_keep": "Little to keep: it reads like chit-chat, or tells about someone or something it never names (a model fitted on notes people labelled).",
        "expired_ephemeral": f"A passing note (a to-do, “tomorrow”) older than {cfg.ephemeral_days} days.",
        "pending_conflict": "Part of an open conflict (decide it in Conflicts).",
    }
    return words.get(code) or f"Flagged: {code.replace('_', ' ')}."


def pair_guess(pair: Pair) -> tuple[str, str, str]:
    """(guess code, guess in words, reason in words) of a pair; the reason is "" for a pair opened
    before reasons were written (the card shows what differs instead). A conflict's guess is a change."""
    if pair.kind == Pair.CONFLICT:
        if not pair.opened_by:
            return "change", "Flagged as contradicting before reasons were written in words", ""
        return "change", GUESSES["change"], pair.reason or ""
    if not pair.guess:
        return "", "Flagged as alike before guesses existed", ""
    return pair.guess, GUESSES.get(pair.guess, pair.guess), pair.reason or ""


def found_by(pair: Pair) -> str:
    return FOUND_BY.get(pair.opened_by, "found by an older check")

"""The review app's posts, cleaned by forms: the views read ``cleaned_data``, never ``request.POST``."""

from __future__ import annotations

import json
import uuid

from django import forms
from django.core.exceptions import ValidationError

from engine import json_limits


class ManyField(forms.Field):
    """A list of strings from repeated form fields (``ids=…&ids=…``)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: object) -> list[str]:
        if not value:
            return []
        items = [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else [value]
        return [str(v).strip() for v in items if str(v).strip()]


def parse_shown(value: str) -> dict[str, int]:
    """What a card showed: "note-id:revision note-id:revision" → {note id: revision}; ValueError if unreadable."""
    shown: dict[str, int] = {}
    for item in value.split():
        note_id, _, revision = item.partition(":")
        shown[str(uuid.UUID(note_id))] = int(revision)
    return shown


class ShownField(forms.Field):
    """The revisions a card showed; the decision is refused when a note moved since (engine/curation/actions.py)."""

    widget = forms.HiddenInput

    def to_python(self, value: object) -> dict[str, int]:
        try:
            return parse_shown(str(value or ""))
        except ValueError:
            raise ValidationError("This card's version is not readable; reload the page.") from None


class BackForm(forms.Form):
    """Every post may name the page to return to after a plain (non-htmx) post."""

    next = forms.CharField(required=False)


class NoteTextForm(BackForm):
    content = forms.CharField(strip=False, required=False)


class CardForm(BackForm):
    """A one-note action; ``card`` says it came from a queue card (answer with the done card),
    ``shown`` the version that card showed."""

    card = forms.BooleanField(required=False)
    shown = ShownField(required=False)


class DecisionForm(BackForm):
    """A pair-flow decision: the merged text as the reviewer left it (used by "same fact" only)
    and the versions the card showed."""

    text = forms.CharField(required=False, strip=False)
    shown = ShownField(required=False)


class UndoForm(BackForm):
    """Where an undo came from: a queue card (``kind`` and ``key``), a bulk run (``queue``, ``keys``) or a note page."""

    kind = forms.CharField(required=False)
    key = forms.CharField(required=False)
    queue = forms.CharField(required=False)
    keys = ManyField(required=False)


# The queues a bulk action works on, and how a card of each is named.
BULK_QUEUES = {"quality": "note", "merges": "pair", "conflicts": "conflict"}


class BulkForm(BackForm):
    """One action on the selected cards of a queue: note ids on the quality queue, pair ids on the others.

    ``step`` "preview" (the default) answers with what the action will do to each card; "run"
    does it, checking each card against the version the preview showed (``shown``: one
    "key=note-id:revision,note-id:revision" per card).
    """

    action = forms.CharField()
    ids = ManyField(required=False)
    step = forms.ChoiceField(choices=[("preview", "preview"), ("run", "run")], required=False)
    shown = ManyField(required=False)

    def __init__(self, *args, queue: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.queue = queue

    def clean_ids(self) -> list:
        """Pair numbers or note ids; one that is neither selects nothing, like a card that is not yours."""
        ids = self.cleaned_data["ids"]
        if self.queue in ("merges", "conflicts"):
            return [int(i) for i in ids if i.isdigit()]
        return [key for key in map(_uuid, ids) if key is not None]

    def clean_shown(self) -> dict[str, dict[str, int]]:
        """Card key → the versions the preview showed it with."""
        out: dict[str, dict[str, int]] = {}
        for item in self.cleaned_data["shown"]:
            key, _, versions = item.partition("=")
            try:
                out[key] = parse_shown(versions.replace(",", " "))
            except ValueError:
                raise ValidationError("A card's version is not readable; reload the page.") from None
        return out


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


class CoreBlockForm(forms.Form):
    """A core-memory block's new value: JSON, parsed here with the parser's own words for a mistake."""

    value = forms.CharField(strip=False, widget=forms.Textarea)

    def clean_value(self) -> object:
        text = self.cleaned_data["value"]
        if json_limits.text_depth(text) > json_limits.MAX_DEPTH:
            raise ValidationError(
                f"The block nests deeper than {json_limits.MAX_DEPTH} levels; nothing was changed. "
                "Your text is still in the box."
            )
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                f"The block is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
                "nothing was changed. Your text is still in the box."
            ) from None

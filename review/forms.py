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


class BackForm(forms.Form):
    """Every post may name the page to return to after a plain (non-htmx) post."""

    next = forms.CharField(required=False)


class NoteTextForm(BackForm):
    content = forms.CharField(strip=False, required=False)


class CardForm(BackForm):
    """A one-note action; ``card`` says it came from a queue card (answer with the done card)."""

    card = forms.BooleanField(required=False)


class MergeForm(BackForm):
    """A merge decision, with the merged text as the reviewer left it (blank: the preview as shown)."""

    text = forms.CharField(required=False)


class UndoForm(BackForm):
    """Where an undo came from: a queue card (``kind`` and ``key``), a bulk run (``queue``, ``keys``) or a note page."""

    kind = forms.CharField(required=False)
    key = forms.CharField(required=False)
    queue = forms.CharField(required=False)
    keys = ManyField(required=False)


# The queues a bulk action works on, and how a card of each is named.
BULK_QUEUES = {"quality": "note", "merges": "note", "conflicts": "conflict"}


class BulkForm(BackForm):
    """One action on the selected cards of a queue: note ids, or conflict ids on the conflicts queue."""

    action = forms.CharField()
    ids = ManyField(required=False)

    def __init__(self, *args, queue: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.queue = queue

    def clean_ids(self) -> list:
        """Conflict numbers or note ids; one that is neither selects nothing, like a card that is not yours."""
        ids = self.cleaned_data["ids"]
        if BULK_QUEUES.get(self.queue) == "conflict":
            return [int(i) for i in ids if i.isdigit()]
        return [key for key in map(_uuid, ids) if key is not None]


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

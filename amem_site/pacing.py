"""Counts the requests this process is serving, so heavy work can give way to them (engine/pacing.py)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from engine import pacing


class RequestsInFlight:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        pacing.request_started()
        try:
            return self.get_response(request)
        finally:
            pacing.request_finished()

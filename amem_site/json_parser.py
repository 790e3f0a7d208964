"""The API's JSON parser: ninja's, with the nesting bound (engine/json_limits.py) checked on the raw text first."""

from __future__ import annotations

import json
from typing import cast

from django.http import HttpRequest
from ninja.parser import Parser
from ninja.types import DictStrAny

from engine import json_limits


class BoundedJsonParser(Parser):
    def parse_body(self, request: HttpRequest) -> DictStrAny:
        # The text is measured before json.loads: the parser, pydantic and every later walk recurse.
        json_limits.check_text(request.body)
        return cast(DictStrAny, json.loads(request.body))

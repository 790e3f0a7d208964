"""amem_site/log_redaction.py: routes stay readable, names and query text do not reach a log."""

from __future__ import annotations

from amem_site.log_redaction import redact_path, redact_query, redact_url


def test_a_subject_in_the_path_is_hidden():
    assert redact_path("/api/v1/subjects/Dora%20Maar") == "/api/v1/subjects/~"
    assert redact_path("/api/v1/memories/3f2a") == "/api/v1/memories/3f2a"


def test_query_values_are_hidden_except_plain_ones():
    assert redact_query("purge=true") == "purge=true"
    assert redact_query("query=dora%27s+flat&limit=5&subject=Dora") == "query=~&limit=5&subject=~"
    assert redact_query("") == ""


def test_a_referer_is_redacted_too():
    assert redact_url("http://h:1/review/agents/a/notes/?q=dora") == "http://h:1/review/agents/a/notes/?q=~"
    assert redact_url("-") == "-"

"""AMEM_LOG_FORMAT=json: every log line is one JSON object a log shipper can parse."""

from __future__ import annotations

import json

from tests.test_configuration_errors import manage


def test_json_log_lines(tmp_path):
    result = manage(
        tmp_path,
        "shell",
        "-c",
        "import logging; logging.getLogger('amem.probe').warning('disk %s is %d%% full', 'var', 91)",
        AMEM_LOG_FORMAT="json",
    )
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "amem.probe" in line]
    record = json.loads(line)
    assert record["message"] == "disk var is 91% full"
    assert record["level"] == "WARNING" and record["logger"] == "amem.probe" and record["time"]


def test_plain_log_lines_by_default(tmp_path):
    result = manage(tmp_path, "shell", "-c", "import logging; logging.getLogger('amem.probe').warning('plain')")
    (line,) = [line for line in result.stderr.splitlines() if "amem.probe" in line]
    assert line.endswith("WARNING amem.probe: plain")

"""Every variable settings.py reads is listed in .env.example and docs/configuration.md."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_environment_variable_is_documented():
    source = (ROOT / "amem_site" / "settings.py").read_text()
    read = set(re.findall(r'env_(?:str|bool|int|float|list|choice|prices)\("([A-Z0-9_]+)"', source))
    read |= set(re.findall(r'"((?:OPENAI|ANTHROPIC)_[A-Z_]+|AMEM_PROMPT_LOCALE)"', source))
    assert len(read) > 30
    example = (ROOT / ".env.example").read_text()
    docs = (ROOT / "docs" / "configuration.md").read_text() + (ROOT / "docs" / "llm.md").read_text()
    assert sorted(v for v in read if f"{v}=" not in example) == []
    assert sorted(v for v in read if f"`{v}`" not in docs) == []

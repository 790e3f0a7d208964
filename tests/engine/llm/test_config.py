"""resolve_llm_config: precedence env > configured > defaults, tiers, keys, timeout."""

from __future__ import annotations

import re

import pytest

from engine.llm import config as llm_config
from engine.llm.config import PLACEHOLDER_KEY, parse_timeout, resolve_llm_config
from tests.engine.llm.test_tiers import EXPECTED_TIER

KEY = {"ANTHROPIC_API_KEY": "sk-ant-test"}


def test_no_key_and_no_provider_means_offline() -> None:
    config = resolve_llm_config({}, {})
    assert config.fast.provider == "none"
    assert config.strong.provider == "none"
    assert config.offline


def test_any_key_defaults_to_anthropic_sonnet() -> None:
    config = resolve_llm_config({"AMEM_LLM_API_KEY": "k"}, {})
    assert (config.fast.provider, config.fast.model) == ("anthropic", "claude-sonnet-4-6")
    assert config.fast.api_key == "k"


def test_only_an_openai_key_defaults_to_openai() -> None:
    config = resolve_llm_config({"OPENAI_API_KEY": "sk-o"}, {})
    assert (config.fast.provider, config.fast.model) == ("openai", "gpt-4o-mini")
    assert config.fast.api_key == "sk-o"


def test_timeout_defaults_to_thirty_seconds() -> None:
    # B085 (in seconds rather than the seed's milliseconds)
    assert resolve_llm_config(KEY, {}).fast.timeout == 30.0


def test_env_timeout_is_read_in_seconds() -> None:
    # B084: the env value reaches the tiers (and from there the client).
    config = resolve_llm_config({**KEY, "AMEM_LLM_TIMEOUT": "5"}, {})
    assert config.fast.timeout == 5.0
    assert config.strong.timeout == 5.0


def test_configured_timeout_is_used_without_env() -> None:
    # B086
    assert resolve_llm_config(KEY, {"timeout": 12}).fast.timeout == 12.0


def test_env_timeout_beats_configured_timeout() -> None:
    assert resolve_llm_config({**KEY, "AMEM_LLM_TIMEOUT": "7"}, {"timeout": 12}).fast.timeout == 7.0


def test_timeout_accepts_an_explicit_ms_suffix() -> None:
    assert parse_timeout("5000ms", "AMEM_LLM_TIMEOUT") == 5.0
    assert parse_timeout("2.5s", "AMEM_LLM_TIMEOUT") == 2.5


@pytest.mark.parametrize("raw", ["soon", "-3", "0", "30 minutes", "1e3"])
def test_malformed_timeout_raises_a_value_error_naming_the_variable(raw: str) -> None:
    with pytest.raises(ValueError, match="AMEM_LLM_TIMEOUT"):
        resolve_llm_config({**KEY, "AMEM_LLM_TIMEOUT": raw}, {})


def test_malformed_configured_timeout_names_the_setting() -> None:
    with pytest.raises(ValueError, match=r"AMEM_LLM\['timeout'\]"):
        resolve_llm_config(KEY, {"timeout": "fast"})


def test_configured_model_is_used_without_env() -> None:
    # B095
    assert resolve_llm_config(KEY, {"model": "claude-haiku-4-5"}).fast.model == "claude-haiku-4-5"


def test_env_model_beats_configured_model() -> None:
    # B096
    config = resolve_llm_config({**KEY, "AMEM_LLM_MODEL": "env-model"}, {"model": "cfg-model"})
    assert config.fast.model == "env-model"


def test_empty_env_model_counts_as_unset() -> None:
    # B097
    config = resolve_llm_config({**KEY, "AMEM_LLM_MODEL": ""}, {"model": "cfg-model"})
    assert config.fast.model == "cfg-model"
    config = resolve_llm_config({**KEY, "AMEM_LLM_MODEL": "   "}, {"model": "cfg-model"})
    assert config.fast.model == "cfg-model"


def test_configured_provider_openai_alone_gets_gpt_4o_mini() -> None:
    # B098
    config = resolve_llm_config({}, {"provider": "openai"})
    assert (config.fast.provider, config.fast.model) == ("openai", "gpt-4o-mini")
    assert config.fast.api_key == PLACEHOLDER_KEY  # B090: keyless local server


def test_configured_base_url_alone_keeps_default_provider_and_model() -> None:
    # B100
    config = resolve_llm_config(KEY, {"base_url": "http://proxy.local:9000"})
    assert config.fast.base_url == "http://proxy.local:9000"
    assert (config.fast.provider, config.fast.model) == ("anthropic", "claude-sonnet-4-6")


def test_api_key_in_configured_values_is_ignored() -> None:
    # B101
    config = resolve_llm_config({}, {"provider": "openai", "api_key": "smuggled"})
    assert config.fast.api_key == PLACEHOLDER_KEY
    config = resolve_llm_config({"OPENAI_API_KEY": "real"}, {"provider": "openai", "api_key": "x"})
    assert config.fast.api_key == "real"


def test_engine_key_beats_the_provider_key() -> None:
    config = resolve_llm_config({"AMEM_LLM_API_KEY": "engine", "OPENAI_API_KEY": "sdk"}, {"provider": "openai"})
    assert config.fast.api_key == "engine"


def test_provider_value_is_stripped_and_lowercased() -> None:
    # B093
    assert resolve_llm_config({"AMEM_LLM_PROVIDER": " OpenAI "}, {}).fast.provider == "openai"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"AMEM_LLM_PROVIDER": "mistral"}, "AMEM_LLM_PROVIDER='mistral'"),
        ({"AMEM_LLM_STRONG_PROVIDER": "gemini"}, "AMEM_LLM_STRONG_PROVIDER='gemini'"),
        ({"AMEM_LLM_CRUD_ROLE": "best"}, "AMEM_LLM_CRUD_ROLE='best'"),
        ({"AMEM_PROMPT_LOCALE": "fr"}, "AMEM_PROMPT_LOCALE='fr'"),
    ],
)
def test_an_unknown_choice_stops_start_up_naming_the_variable(env: dict[str, str], named: str) -> None:
    # docs/configuration.md: a bad value stops start-up; a guess would send every call astray.
    with pytest.raises(ValueError, match=re.escape(named)):
        resolve_llm_config({**KEY, **env}, {})


def test_provider_none_is_offline_even_with_a_key() -> None:
    config = resolve_llm_config({**KEY, "AMEM_LLM_PROVIDER": "none"}, {})
    assert config.offline
    assert config.fast.api_key == ""


def test_strong_tier_falls_back_to_fast_field_by_field() -> None:
    # B104 / B105
    env = {**KEY, "AMEM_LLM_MODEL": "cheap-1", "AMEM_LLM_BASE_URL": "http://a.local"}
    config = resolve_llm_config(env, {})
    assert (config.strong.provider, config.strong.model, config.strong.base_url) == (
        "anthropic",
        "cheap-1",
        "http://a.local",
    )
    config = resolve_llm_config({**env, "AMEM_LLM_STRONG_MODEL": "strong-1"}, {})
    assert (config.strong.provider, config.strong.model, config.strong.base_url) == (
        "anthropic",
        "strong-1",
        "http://a.local",
    )
    assert config.strong.api_key == "sk-ant-test"


def test_strong_tier_on_another_provider_does_not_inherit_model_url_or_key() -> None:
    env = {
        "AMEM_LLM_API_KEY": "anthropic-key",
        "OPENAI_API_KEY": "openai-key",
        "AMEM_LLM_MODEL": "cheap-1",
        "AMEM_LLM_BASE_URL": "http://a.local",
        "AMEM_LLM_STRONG_PROVIDER": "openai",
    }
    config = resolve_llm_config(env, {})
    assert config.strong.provider == "openai"
    assert config.strong.model == "gpt-4o-mini"
    assert config.strong.base_url == "https://api.openai.com/v1"
    assert config.strong.api_key == "openai-key"


def test_configured_strong_block_is_used_without_env() -> None:
    # B108
    config = resolve_llm_config(KEY, {"model": "cheap-1", "strong": {"model": "strong-1"}})
    assert config.fast.model == "cheap-1"
    assert config.strong.model == "strong-1"


def test_env_strong_model_beats_configured_strong_block() -> None:
    config = resolve_llm_config({**KEY, "AMEM_LLM_STRONG_MODEL": "env-strong"}, {"strong": {"model": "cfg-strong"}})
    assert config.strong.model == "env-strong"


@pytest.mark.parametrize(
    ("value", "tier"), [("", "fast"), ("fast", "fast"), ("strong", "strong"), ("STRONG", "strong")]
)
def test_crud_role_picks_the_tier(value: str, tier: str) -> None:
    # B103 (resolution part)
    config = resolve_llm_config({**KEY, "AMEM_LLM_CRUD_ROLE": value}, {})
    assert config.tier_name_for("crud") == tier


def test_roles_map_to_their_tiers() -> None:
    config = resolve_llm_config(KEY, {})
    assert {r: config.tier_name_for(r) for r in llm_config.ROLES} == EXPECTED_TIER


def test_prompt_locale_comes_from_env_or_configured_and_defaults_to_en() -> None:
    assert resolve_llm_config(KEY, {}).prompt_locale == "en"
    assert resolve_llm_config({**KEY, "AMEM_PROMPT_LOCALE": "zh"}, {}).prompt_locale == "zh"
    assert resolve_llm_config(KEY, {"prompt_locale": "ZH"}).prompt_locale == "zh"


def test_api_keys_never_appear_in_the_config_repr() -> None:
    config = resolve_llm_config({"AMEM_LLM_API_KEY": "sk-secret-value"}, {})
    assert "sk-secret-value" not in repr(config)


def test_provider_base_url_variable_is_used_when_nothing_else_is_set() -> None:
    config = resolve_llm_config({"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://vllm:8000/v1"}, {})
    assert config.fast.base_url == "http://vllm:8000/v1"

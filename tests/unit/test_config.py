"""Configuration: flags > environment > .env > defaults, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from k8s_agent_harness.config import load_config, read_dotenv
from k8s_agent_harness.errors import ConfigError


def test_precedence_is_flags_then_environment_then_dotenv_then_defaults(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("K8S_AGENT_MAX_STEPS=4\nK8S_AGENT_MAX_REPEATS=5\nK8S_AGENT_TRACE_DIR=from-file\n")
    environ = {"K8S_AGENT_MAX_REPEATS": "6", "K8S_AGENT_TRACE_DIR": "from-env"}

    config = load_config({"trace_dir": "from-flag", "max_steps": None}, environ, dotenv)

    assert config.trace_dir == Path("from-flag")
    assert config.max_repeats == 6
    assert config.max_steps == 4
    assert config.max_seconds == 300.0
    assert config.offline


def test_an_api_key_or_endpoint_selects_a_real_model_unless_one_is_named(tmp_path: Path) -> None:
    keyed = load_config({}, {"OPENAI_API_KEY": "sk-abc"}, None)
    ollama = load_config({"base_url": "http://localhost:11434/v1/", "model": "qwen2.5"}, {}, None)

    assert keyed.model == "gpt-4o-mini" and not keyed.offline
    assert ollama.base_url == "http://localhost:11434/v1" and ollama.model == "qwen2.5"
    assert "sk-abc" not in repr(keyed)


def test_kubeconfig_is_passed_on_to_the_mcp_server() -> None:
    config = load_config({"mcp_env": {"EXTRA": "1"}}, {"KUBECONFIG": "/k/config", "HOME": "/root"}, None)

    assert dict(config.mcp_env) == {"KUBECONFIG": "/k/config", "EXTRA": "1"}


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"impl": "crewai"}, "unknown implementation 'crewai'"),
        ({"max_steps": "ten"}, "max-steps must be a number, got 'ten'"),
        ({"max_repeats": 0}, "max-repeats must be at least 1"),
        ({"tool_timeout": -1}, "tool-timeout must be positive"),
        ({"cluster": "missing.json"}, "cluster fixture not found: missing.json"),
        ({"cluster": __file__, "mcp_command": "x"}, "cannot be combined with --mcp-command"),
        ({"model": "gpt-4o"}, "needs an endpoint"),
        ({"mcp_command": "   "}, "mcp-command is empty"),
    ],
)
def test_bad_values_are_config_errors(flags: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(flags, {}, None)


def test_dotenv_understands_export_quotes_and_comments(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        '# comment\nexport OPENAI_BASE_URL="http://x:1/v1"\nOPENAI_MODEL=qwen # trailing\nEMPTY=\n'
    )

    assert read_dotenv(dotenv) == {"OPENAI_BASE_URL": "http://x:1/v1", "OPENAI_MODEL": "qwen", "EMPTY": ""}
    dotenv.write_text("not a setting\n")
    with pytest.raises(ConfigError, match=r"\.env:1: expected KEY=VALUE"):
        read_dotenv(dotenv)


def test_the_default_trace_folder_is_the_user_state_folder_and_is_read_at_load_time(tmp_path: Path) -> None:
    state = load_config({}, {"XDG_STATE_HOME": str(tmp_path)}, None)
    home = load_config({}, {"HOME": str(tmp_path / "home")}, None)
    named = load_config({}, {"K8S_AGENT_TRACE_DIR": "~/mine", "HOME": str(tmp_path)}, None)

    assert state.trace_dir == tmp_path / "k8s-agent" / "traces"
    assert home.trace_dir == tmp_path / "home" / ".local" / "state" / "k8s-agent" / "traces"
    assert named.trace_dir == Path("~/mine").expanduser()


def test_each_setting_s_help_names_its_default_and_environment_variables() -> None:
    from k8s_agent_harness.config import help_of

    assert help_of("max_steps").endswith("(default 10) [env K8S_AGENT_MAX_STEPS]")
    assert help_of("max_seconds").endswith("(default 300) [env K8S_AGENT_MAX_SECONDS]")
    assert "default" not in help_of("api_key")

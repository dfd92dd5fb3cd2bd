"""Configuration: flags > environment > .env > defaults, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from k8s_agent_harness.config_load import load_config, read_dotenv
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
        read_dotenv(dotenv, required=True)
    assert read_dotenv(dotenv) == {}  # a .env found in the folder, not named: the line is skipped


# What docker compose and python-dotenv accept: a .env written for them is read the same way.
COMPOSE_DOTENV = r"""# services
export OPENAI_BASE_URL=http://localhost:11434/v1
  K8S_AGENT_MAX_STEPS = 4   # indented, spaces around =
TLS_CERT="-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIU
-----END CERTIFICATE-----"
SINGLE='literal $HOME \n # not a comment'
DOUBLE="tab\there \"quoted\" back\\slash # not a comment" # a comment
MULTI='line one
line two'
HASH=abc#def
URL=postgres://u:p@db:5432/x?sslmode=require
EMPTY=
QUOTED_EMPTY=""
JUST_A_NAME
OPENAI_MODEL=qwen2.5
"""


def test_dotenv_reads_what_compose_and_python_dotenv_read(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(COMPOSE_DOTENV)

    values = read_dotenv(dotenv, required=True)

    assert values == {
        "OPENAI_BASE_URL": "http://localhost:11434/v1",
        "K8S_AGENT_MAX_STEPS": "4",
        "TLS_CERT": "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
        "SINGLE": "literal $HOME \\n # not a comment",
        "DOUBLE": 'tab\there "quoted" back\\slash # not a comment',
        "MULTI": "line one\nline two",
        "HASH": "abc#def",
        "URL": "postgres://u:p@db:5432/x?sslmode=require",
        "EMPTY": "",
        "QUOTED_EMPTY": "",
        "OPENAI_MODEL": "qwen2.5",
    }
    config = load_config({}, {}, dotenv)
    assert config.max_steps == 4 and config.model == "qwen2.5"  # the lines after a multi-line value count


def test_a_line_that_cannot_be_read_is_skipped_unless_the_file_was_named(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text('K8S_AGENT_MAX_STEPS=3\n{"json": 1}\nBROKEN="never closed\nK8S_AGENT_MAX_REPEATS=5\n')

    config = load_config({}, {}, dotenv)
    assert (config.max_steps, config.max_repeats) == (3, 5)

    with pytest.raises(ConfigError, match=r"\.env:2: expected KEY=VALUE"):
        load_config({}, {}, dotenv, dotenv_required=True)
    dotenv.write_text('K8S_AGENT_MAX_STEPS=3\nBROKEN="never closed\nK8S_AGENT_MAX_REPEATS=5\n')
    assert load_config({}, {}, dotenv).max_repeats == 5  # the line after an unterminated quote is read
    with pytest.raises(
        ConfigError, match=r'\.env:2: the " quote that opens the value of BROKEN is never closed'
    ):
        read_dotenv(dotenv, required=True)
    dotenv.write_text("A=1\nB='x' y\n")
    with pytest.raises(ConfigError, match=r"\.env:2: unexpected text after the quoted value of B"):
        read_dotenv(dotenv, required=True)
    dotenv.write_bytes(b"K8S_AGENT_MAX_STEPS=3\nNOTE=caf\xe9\n")  # latin-1, not UTF-8
    assert load_config({}, {}, dotenv).max_steps == 3  # the other lines are read
    with pytest.raises(ConfigError, match="cannot read"):
        read_dotenv(dotenv, required=True)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        (
            {"K8S_AGENT_MAX_STEPS": "many"},
            "max-steps must be a number, got 'many' (from K8S_AGENT_MAX_STEPS in "
            "the environment; flag --max-steps)",
        ),
        (
            {"K8S_AGENT_MAX_SECONDS": "0"},
            "max-seconds must be positive (from K8S_AGENT_MAX_SECONDS in the "
            "environment; flag --max-seconds)",
        ),
        (
            {"K8S_AGENT_IMPL": "crewai"},
            "unknown implementation 'crewai': choose one of handwritten, sdk (from "
            "K8S_AGENT_IMPL in the environment; flag --impl)",
        ),
        (
            {"K8S_AGENT_MCP_COMMAND": 'server --arg "unterminated'},
            "mcp-command is not a command line (no "
            "closing quotation): 'server --arg \"unterminated' (from K8S_AGENT_MCP_COMMAND in the environment; "
            "flag --mcp-command)",
        ),
    ],
)
def test_a_bad_value_from_the_environment_names_the_variable_and_the_flag(
    environ: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config({}, environ, None)

    assert str(raised.value) == message


def test_a_bad_value_from_dotenv_names_the_file_and_a_flag_overrides_the_variable(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("K8S_AGENT_MAX_STEPS=0\n")

    with pytest.raises(ConfigError, match=rf"\(from K8S_AGENT_MAX_STEPS in {dotenv}; flag --max-steps\)$"):
        load_config({}, {}, dotenv)
    with pytest.raises(ConfigError) as raised:
        load_config({"max_steps": "0"}, {}, dotenv)
    assert str(raised.value) == "max-steps must be at least 1"  # the flag's value: nothing more to say


@pytest.mark.parametrize(("value", "steps"), [("1e3", 1000), ("10.0", 10), (" 7 ", 7), (12.0, 12)])
def test_a_whole_number_written_as_a_float_is_a_whole_number(value: object, steps: int) -> None:
    assert load_config({"max_steps": value}, {}, None).max_steps == steps


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1.5", "max-steps must be a whole number, got '1.5'"),
        (2.7, "max-steps must be a whole number, got 2.7"),
        ("1e999", "max-steps must be a finite number, got '1e999'"),
        ("ten", "max-steps must be a number, got 'ten'"),
    ],
)
def test_a_number_that_is_not_whole_is_refused_in_words(value: object, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config({"max_steps": value}, {}, None)

    assert str(raised.value) == message


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

"""Cluster server presets: command, environment and kubeconfig secrets, found without running anything."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import sys
from pathlib import Path

import pytest
import yaml

from k8s_agent.cli import build_parser, config_from
from k8s_agent_harness.cluster.discovery import kms_platform_package
from k8s_agent_harness.cluster.kubeconfig import kubeconfig_secrets, secrets_in_kubeconfig
from k8s_agent_harness.cluster.servers import (
    KUBERNETES_MCP_SERVER_CONFIG,
    MCP_SERVER_KUBERNETES_TOOLS,
    resolve_server,
)
from k8s_agent_harness.config import Config
from k8s_agent_harness.config_load import load_config
from k8s_agent_harness.errors import ConfigError

TOKEN = "fake-token-DO-NOT-LEAK-6f1c2b9e"

KUBECONFIG_YAML = """\
apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    server: https://10.0.0.1:6443
  name: prod
users:
- name: admin
  user:
    client-certificate-data: Y2VydGlmaWNhdGU=
    client-key-data: "cHJpdmF0ZS1rZXktZGF0YQ=="
    token: 'abc.def-ghi_jkl'
- name: oidc
  user:
    auth-provider:
      name: oidc
      config:
        client-id: kubernetes
        client-secret: s3cr3t-value
        id-token: eyJhbGciOi.payload.signature
        refresh-token: refresh-123456
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      env:
      - name: AWS_PROFILE
        value: prod
      - name: AWS_SECRET_ACCESS_KEY
        value: wJalrXUtnFEMI/K7MDENG
- name: basic
  user:
    username: admin
    password: hunter22
- name: viewed
  user:
    token: REDACTED
    client-key-data: DATA+OMITTED
"""


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def kubeconfig(path: Path, token: str = TOKEN) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:6443"}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x",
    }
    path.write_text(json.dumps(config, indent=2))
    return path


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, str]:
    """An environment with an empty PATH folder, a cache, a HOME and a kubeconfig of its own."""
    (tmp_path / "bin").mkdir()
    return {
        "PATH": str(tmp_path / "bin"),
        "HOME": str(tmp_path / "home"),
        "K8S_AGENT_CACHE": str(tmp_path / "cache"),
        "KUBECONFIG": str(kubeconfig(tmp_path / "kubeconfig")),
    }


def installed_kms(cache: Path) -> Path:
    """kubernetes-mcp-server as the install script leaves it in the cache."""
    package = kms_platform_package()
    assert package is not None
    modules = cache / "npm" / "node_modules"
    (modules / package).mkdir(parents=True)
    (modules / package / "package.json").write_text(json.dumps({"name": package, "version": "0.0.67"}))
    return executable(modules / package / "bin" / package)


def installed_flux(cache: Path) -> Path:
    package = cache / "npm" / "node_modules" / "mcp-server-kubernetes"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "mcp-server-kubernetes", "version": "4.1.7"}))
    script = package / "dist" / "index.js"
    script.write_text("#!/usr/bin/env node\n")
    return script


# -- secrets -------------------------------------------------------------------------------------------


def test_every_credential_of_a_yaml_kubeconfig_is_found_in_document_order_and_nothing_else() -> None:
    assert secrets_in_kubeconfig(KUBECONFIG_YAML) == [
        "cHJpdmF0ZS1rZXktZGF0YQ==",
        "abc.def-ghi_jkl",
        "s3cr3t-value",
        "eyJhbGciOi.payload.signature",
        "refresh-123456",
        "wJalrXUtnFEMI/K7MDENG",
        "hunter22",
    ]


def test_json_and_flow_style_kubeconfigs_give_their_secrets_too() -> None:
    as_json = json.dumps(
        {
            "users": [
                {"user": {"token": TOKEN, "exec": {"env": [{"name": "VAULT_TOKEN", "value": "hvs.x1y2z3"}]}}}
            ]
        }
    )

    assert secrets_in_kubeconfig(as_json) == [TOKEN, "hvs.x1y2z3"]
    assert secrets_in_kubeconfig("users: [{name: u, user: {token: flow-token-1}}]") == ["flow-token-1"]


def test_token_files_named_by_a_kubeconfig_are_read(tmp_path: Path) -> None:
    (tmp_path / "sa-token").write_text("token-from-a-file-0123\n")
    config = tmp_path / "config"
    config.write_text("users:\n- name: u\n  user:\n    tokenFile: sa-token\n    token: inline-token\n")

    assert kubeconfig_secrets([config, tmp_path / "missing"], {}) == (
        "inline-token",
        "token-from-a-file-0123",
    )


# -- the mock and --mcp-command --------------------------------------------------------------------------


def test_no_preset_starts_the_embedded_mock_cluster(tmp_path: Path) -> None:
    fixture = tmp_path / "cluster.json"
    fixture.write_text("{}")

    plain = resolve_server(Config(), {})
    chosen = resolve_server(Config(cluster_server="mock", cluster=fixture), {})

    assert plain.command == (sys.executable, "-m", "k8s_agent_mock_cluster")
    assert chosen.command == (sys.executable, "-m", "k8s_agent_mock_cluster", "--cluster", str(fixture))
    assert plain.secrets == () and plain.preset == "mock"


def test_a_custom_command_runs_as_given_with_the_kubeconfig_secrets(machine: dict[str, str]) -> None:
    config = Config(mcp_command=("my-server", "--flag"), mcp_env={"KUBECONFIG": machine["KUBECONFIG"]})

    launch = resolve_server(config, machine)

    assert launch.command == ("my-server", "--flag")
    assert launch.env == {"KUBECONFIG": machine["KUBECONFIG"]}
    assert launch.secrets == (TOKEN,)
    assert launch.preset == "custom"


# -- kubernetes-mcp-server -------------------------------------------------------------------------------


def test_kubernetes_mcp_server_runs_the_cached_binary_read_only_without_the_config_toolset(
    machine: dict[str, str],
) -> None:
    binary = installed_kms(Path(machine["K8S_AGENT_CACHE"]))

    launch = resolve_server(Config(cluster_server="kubernetes-mcp-server"), machine)

    assert launch.command[:5] == (str(binary), "--read-only", "--toolsets", "core", "--disable-multi-cluster")
    assert launch.command[5] == "--config"
    settings = Path(launch.command[6])
    assert launch.files == {settings: KUBERNETES_MCP_SERVER_CONFIG}
    assert not settings.exists()  # resolving writes nothing...
    launch.prepare()
    assert settings.read_text() == KUBERNETES_MCP_SERVER_CONFIG  # ...preparing the launch does
    assert 'kind = "Secret"' in KUBERNETES_MCP_SERVER_CONFIG
    assert launch.env["KUBECONFIG"] == machine["KUBECONFIG"]
    assert launch.secrets == (TOKEN,)
    assert "kubernetes-mcp-server 0.0.67" in launch.description


def test_the_binary_override_wins_and_must_exist(machine: dict[str, str], tmp_path: Path) -> None:
    installed_kms(Path(machine["K8S_AGENT_CACHE"]))
    mine = executable(tmp_path / "elsewhere" / "kms")
    config = Config(cluster_server="kubernetes-mcp-server")

    assert resolve_server(config, {**machine, "KUBERNETES_MCP_SERVER_BIN": str(mine)}).command[0] == str(mine)
    with pytest.raises(ConfigError, match="KUBERNETES_MCP_SERVER_BIN=/nope: no such file"):
        resolve_server(config, {**machine, "KUBERNETES_MCP_SERVER_BIN": "/nope"})


def test_an_npm_wrapper_on_path_is_replaced_by_its_platform_binary(
    machine: dict[str, str], tmp_path: Path
) -> None:
    package = kms_platform_package()
    assert package is not None
    modules = tmp_path / "global" / "lib" / "node_modules"
    wrapper = executable(modules / "kubernetes-mcp-server" / "bin" / "index.js", "#!/usr/bin/env node\n")
    binary = executable(modules / package / "bin" / package, "\x7fELF")
    (Path(machine["PATH"]) / "kubernetes-mcp-server").symlink_to(wrapper)

    launch = resolve_server(Config(cluster_server="kubernetes-mcp-server"), machine)

    assert launch.command[0] == str(binary)


def test_a_missing_server_names_what_to_install(machine: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as error:
        resolve_server(Config(cluster_server="kubernetes-mcp-server"), machine)

    assert str(error.value).startswith("kubernetes-mcp-server not found: install it with")
    assert ".ci/install-k8s-mcp-servers.sh" in str(error.value)
    assert "KUBERNETES_MCP_SERVER_BIN" in str(error.value)


def test_a_real_cluster_server_needs_a_kubeconfig(machine: dict[str, str]) -> None:
    installed_kms(Path(machine["K8S_AGENT_CACHE"]))
    del machine["KUBECONFIG"]

    with pytest.raises(ConfigError, match=r"needs a kubeconfig and there is none at ~/.kube/config"):
        resolve_server(Config(cluster_server="kubernetes-mcp-server"), machine)


def test_the_default_kubeconfig_is_home_kube_config(machine: dict[str, str]) -> None:
    installed_kms(Path(machine["K8S_AGENT_CACHE"]))
    del machine["KUBECONFIG"]
    default = kubeconfig(Path(machine["HOME"]) / ".kube" / "config", token="home-token-123")

    launch = resolve_server(Config(cluster_server="kubernetes-mcp-server"), machine)

    assert launch.env["KUBECONFIG"] == str(default)
    assert launch.secrets == ("home-token-123",)


# -- mcp-server-kubernetes -------------------------------------------------------------------------------


def test_mcp_server_kubernetes_runs_with_node_read_only_and_a_narrowed_tool_list(
    machine: dict[str, str],
) -> None:
    script = installed_flux(Path(machine["K8S_AGENT_CACHE"]))
    node = executable(Path(machine["PATH"]) / "node")
    executable(Path(machine["PATH"]) / "kubectl")
    config = Config(
        cluster_server="mcp-server-kubernetes",
        mcp_env={"KUBECONFIG": machine["KUBECONFIG"], "ALLOW_ONLY_READONLY_TOOLS": "false", "HOME": "/h"},
    )

    launch = resolve_server(config, machine)

    assert launch.command == (str(node), str(script))
    assert launch.env["ALLOW_ONLY_READONLY_TOOLS"] == "true"
    assert launch.env["ALLOWED_TOOLS"] == ",".join(MCP_SERVER_KUBERNETES_TOOLS)
    assert (
        "kubectl_context" not in MCP_SERVER_KUBERNETES_TOOLS
        and "kubectl_reconnect" not in MCP_SERVER_KUBERNETES_TOOLS
    )
    assert launch.env["MASK_SECRETS"] == "true"
    assert launch.env["PATH"] == machine["PATH"]
    assert launch.env["HOME"] == "/h"
    assert launch.secrets == (TOKEN,)


@pytest.mark.parametrize(("present", "missing"), [(("node",), "kubectl"), (("kubectl",), "node")])
def test_mcp_server_kubernetes_needs_node_and_kubectl_on_path(
    machine: dict[str, str], present: tuple[str, ...], missing: str
) -> None:
    installed_flux(Path(machine["K8S_AGENT_CACHE"]))
    for program in present:
        executable(Path(machine["PATH"]) / program)

    with pytest.raises(ConfigError, match=rf"`{missing}` is not on PATH"):
        resolve_server(Config(cluster_server="mcp-server-kubernetes"), machine)


def test_mcp_server_kubernetes_is_found_on_path_too(machine: dict[str, str], tmp_path: Path) -> None:
    script = executable(
        tmp_path / "lib" / "mcp-server-kubernetes" / "dist" / "index.js", "#!/usr/bin/env node\n"
    )
    (Path(machine["PATH"]) / "mcp-server-kubernetes").symlink_to(script)
    executable(Path(machine["PATH"]) / "node")
    executable(Path(machine["PATH"]) / "kubectl")

    launch = resolve_server(Config(cluster_server="mcp-server-kubernetes"), machine)

    assert launch.command[1] == str(script.resolve())


# -- configuration and the flag ----------------------------------------------------------------------------


KEYED = {"OPENAI_API_KEY": "sk-test-not-a-real-key-000"}


def test_the_preset_comes_from_the_flag_or_the_environment() -> None:
    from_env = load_config({}, {**KEYED, "K8S_AGENT_CLUSTER_SERVER": "mcp-server-kubernetes"}, None)
    args = build_parser().parse_args(["ask", "q", "--cluster-server", "kubernetes-mcp-server"])
    from_flag = config_from(args, {**KEYED, "K8S_AGENT_CLUSTER_SERVER": "mock"})

    assert from_env.cluster_server == "mcp-server-kubernetes"
    assert from_flag.cluster_server == "kubernetes-mcp-server"


def test_a_flag_naming_the_cluster_overrides_the_environment_naming_it_otherwise() -> None:
    assert (
        load_config({"mcp_command": "x"}, {"K8S_AGENT_CLUSTER_SERVER": "mock"}, None).cluster_server is None
    )
    preset = load_config(
        {"cluster_server": "kubernetes-mcp-server"}, {**KEYED, "K8S_AGENT_MCP_COMMAND": "x"}, None
    )
    assert preset.mcp_command == ()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            {"cluster_server": "kubectl-ai"},
            "unknown cluster server 'kubectl-ai': choose one of kubernetes-mcp-server",
        ),
        ({"cluster_server": "mock", "mcp_command": "x"}, "--cluster-server and --mcp-command both name"),
        (
            {"cluster_server": "mcp-server-kubernetes", "cluster": __file__},
            "through the mock cluster or kubernetes-mcp-server; it cannot be combined with --cluster-server "
            "mcp-server-kubernetes",
        ),
        (
            {"cluster_server": "kubernetes-mcp-server", "cluster": __file__, "context": "prod"},
            "--context names another",
        ),
        (
            {"cluster_server": "kubernetes-mcp-server", "cluster": __file__, "kubeconfig": __file__},
            "--kubeconfig names another",
        ),
        (
            {"cluster_server": "mcp-server-kubernetes", "model": "offline"},
            r"the offline model \(a deterministic playbook, not an LLM\) knows the tools of the mock cluster and "
            "kubernetes-mcp-server only, not those of mcp-server-kubernetes: use --cluster-server "
            "kubernetes-mcp-server, or set OPENAI_API_KEY",
        ),
        (
            {"cluster_server": "mcp-server-kubernetes", "model": "baseline:rules"},
            "baseline:rules knows the tools of the mock cluster and kubernetes-mcp-server only, not those of "
            "mcp-server-kubernetes: use --cluster-server kubernetes-mcp-server, or set OPENAI_API_KEY",
        ),
    ],
)
def test_bad_presets_are_config_errors(flags: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(flags, KEYED, None)


@pytest.mark.parametrize("fixture", [None, __file__])
def test_the_offline_model_may_use_kubernetes_mcp_server_on_a_cluster_or_a_fixture(
    fixture: str | None,
) -> None:
    config = load_config({"cluster_server": "kubernetes-mcp-server", "cluster": fixture}, {}, None)

    assert config.offline and config.cluster_server == "kubernetes-mcp-server"
    assert config.cluster == (Path(fixture) if fixture else None)


def test_a_fixture_through_kubernetes_mcp_server_reads_only_the_kubeconfig_of_the_api_serving_it(
    machine: dict[str, str], tmp_path: Path
) -> None:
    installed_kms(Path(machine["K8S_AGENT_CACHE"]))
    config = load_config(
        {"cluster_server": "kubernetes-mcp-server", "cluster": __file__},
        {"KUBECONFIG": machine["KUBECONFIG"]},
        None,
    )
    served = kubeconfig(tmp_path / "served-kubeconfig", token="token-of-the-fake-api-0001")

    before = resolve_server(config, machine)  # checking the request: nothing serves the fixture yet
    during = resolve_server(dataclasses.replace(config, kubeconfig=served), machine)

    assert before.env["KUBECONFIG"] == os.devnull and before.secrets == ()  # never the user's
    assert during.env["KUBECONFIG"] == str(served) and during.secrets == ("token-of-the-fake-api-0001",)
    assert f"the fixture {__file__} served by a fake Kubernetes API" in during.description


def test_resolving_reads_only_the_given_environment(
    machine: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    installed_kms(Path(machine["K8S_AGENT_CACHE"]))
    monkeypatch.setenv("KUBERNETES_MCP_SERVER_BIN", "/from/the/process/environment")

    launch = resolve_server(Config(cluster_server="kubernetes-mcp-server"), machine)

    assert launch.command[0].startswith(machine["K8S_AGENT_CACHE"])
    assert os.environ["KUBERNETES_MCP_SERVER_BIN"] == "/from/the/process/environment"


# -- --kubeconfig and --context ------------------------------------------------------------------------


def two_context_kubeconfig(path: Path) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:6443"}}],
        "users": [{"name": "u", "user": {"token": TOKEN}}],
        "contexts": [
            {"name": "staging", "context": {"cluster": "c", "user": "u"}},
            {"name": "arn:aws:eks:eu-west-1:1:cluster/prod", "context": {"cluster": "c", "user": "u"}},
        ],
        "current-context": "staging",
    }
    path.write_text(json.dumps(config))
    return path


def test_context_puts_a_kubeconfig_that_selects_it_first(machine: dict[str, str], tmp_path: Path) -> None:
    installed_kms(Path(machine["K8S_AGENT_CACHE"]))
    kubeconfig = two_context_kubeconfig(tmp_path / "two-contexts")
    context = "arn:aws:eks:eu-west-1:1:cluster/prod"
    config = load_config(
        {"cluster_server": "kubernetes-mcp-server", "kubeconfig": str(kubeconfig), "context": context},
        KEYED,
        None,
    )

    launch = resolve_server(config, machine)

    override, original = launch.env["KUBECONFIG"].split(os.pathsep)
    assert original == str(kubeconfig) and Path(override).parent.name == "contexts"
    assert not Path(override).exists()
    launch.prepare()
    assert yaml.safe_load(Path(override).read_text())["current-context"] == context
    assert f"context {context} only" in launch.description and launch.secrets == (TOKEN,)


def test_a_context_the_kubeconfig_does_not_have_is_an_error_naming_the_ones_it_has(
    machine: dict[str, str], tmp_path: Path
) -> None:
    installed_kms(Path(machine["K8S_AGENT_CACHE"]))
    kubeconfig = two_context_kubeconfig(tmp_path / "two-contexts")
    config = load_config(
        {"cluster_server": "kubernetes-mcp-server", "kubeconfig": str(kubeconfig), "context": "prod"},
        KEYED,
        None,
    )

    with pytest.raises(
        ConfigError, match=r"context 'prod' is not in the kubeconfig .*: its contexts are staging, arn:"
    ):
        resolve_server(config, machine)


def test_a_kubeconfig_that_is_not_yaml_is_an_error_before_anything_starts(tmp_path: Path) -> None:
    broken = tmp_path / "config"
    broken.write_text("users: [\n  - {name: u\n")

    with pytest.raises(ConfigError, match="is not a valid kubeconfig"):
        kubeconfig_secrets([broken], {})


@pytest.mark.parametrize(
    ("preset", "transport", "said"),
    [
        ("mcp-server-kubernetes", "streamable-http", "starts mcp-server-kubernetes on stdio only"),
        ("kubernetes-mcp-server", "sse", "serves Streamable HTTP only"),
    ],
)
def test_a_preset_that_cannot_serve_the_transport_is_a_config_error(
    preset: str, transport: str, said: str, tmp_path: Path
) -> None:
    kubeconfig_file = tmp_path / "kubeconfig"
    kubeconfig_file.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c}]\n")
    binary = tmp_path / "kubernetes-mcp-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    environ = {"PATH": os.defpath, "KUBERNETES_MCP_SERVER_BIN": str(binary), "K8S_AGENT_CACHE": str(tmp_path)}
    config = Config(
        cluster_server=preset, mcp_transport=transport, mcp_env={"KUBECONFIG": str(kubeconfig_file)}
    )

    with pytest.raises(ConfigError, match=said):
        resolve_server(config, environ)


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_the_mock_started_in_http_mode_serves_on_loopback_and_announces_its_url(transport: str) -> None:
    launch = resolve_server(Config(mcp_transport=transport), {})

    assert launch.http is not None and launch.http.transport == transport
    assert launch.command[3:5] == ("--http", "127.0.0.1:0") and launch.http.port_arguments == ()
    assert ("--sse" in launch.command) == (transport == "sse")


def test_a_started_server_gets_private_copies_of_the_kubeconfig_with_its_relative_paths_made_absolute(
    tmp_path: Path,
) -> None:
    from k8s_agent_harness.cluster.kubeconfig import private_copies

    home = tmp_path / "kube"
    home.mkdir()
    (home / "ca.crt").write_text("a CA")
    user = home / "config"
    user.write_text(
        "apiVersion: v1\nkind: Config\n"
        "clusters: [{name: c, cluster: {server: 'https://10.0.0.1', certificate-authority: ca.crt}}]\n"
        "users: [{name: u, user: {exec: {command: ./bin/login, apiVersion: v1}}}]\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
    )
    other = tmp_path / "other.yaml"
    other.write_text("not: [yaml")  # not YAML: copied as it is
    before = user.read_bytes(), other.read_bytes()

    with private_copies(f"{user}{os.pathsep}{other}{os.pathsep}{tmp_path / 'missing'}") as listed:
        assert listed is not None
        copies = [Path(part) for part in listed.split(os.pathsep)]
        assert len(copies) == 2 and copies[0].parent == copies[1].parent
        folder = copies[0].parent
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert all(stat.S_IMODE(copy.stat().st_mode) == 0o600 for copy in copies)
        copied = yaml.safe_load(copies[0].read_text())
        assert copied["clusters"][0]["cluster"]["certificate-authority"] == str(home / "ca.crt")
        assert copied["users"][0]["user"]["exec"]["command"] == str(home / "bin" / "login")
        assert copies[1].read_bytes() == before[1]
        copies[0].write_text("current-context: elsewhere\n")  # what a server may write

    assert not folder.exists()
    assert (user.read_bytes(), other.read_bytes()) == before


def test_a_kubeconfig_that_names_no_file_is_passed_on_as_it_is() -> None:
    from k8s_agent_harness.cluster.kubeconfig import private_copies

    with private_copies(os.devnull) as listed:
        assert listed == os.devnull
    with private_copies(None) as listed:
        assert listed is None

"""Pick an implementation, give it a model endpoint (the offline model when none is configured), ask it.

Checking a request (`scoped_question`, `check_inputs`) imports nothing heavy: `ask` refuses bad input
at once, before openai, mcp, the SDK or the harness's session are loaded.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from k8s_agent_harness.cluster.discovery import KUBERNETES_MCP_SERVER
from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.vocabulary import Impl

if TYPE_CHECKING:
    from k8s_agent_harness.session import RunResult

AskFunction = Callable[..., Awaitable["RunResult"]]
"""An implementation's `ask(config, question, **options)`."""


def ask_function(impl: Impl | str) -> AskFunction:
    """The `ask` coroutine function of an implementation; the SDK is imported only when asked for."""
    impl = Impl(impl)
    if impl is Impl.HANDWRITTEN:
        from handwritten_agent import ask as ask_handwritten

        return ask_handwritten
    if impl is Impl.SDK:
        from sdk_agent import ask as ask_sdk  # type: ignore[attr-defined,unused-ignore]

        return ask_sdk  # type: ignore[no-any-return,unused-ignore]
    raise AssertionError(impl)


_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


def scoped_question(question: str, namespace: str | None) -> str:
    """The question with `-n NAMESPACE` as a scope line the model (and the offline model) reads."""
    if namespace is None:
        return question
    namespace = namespace.strip().lower()  # namespaces are lower-case DNS labels
    if not _NAMESPACE.fullmatch(namespace):
        raise ConfigError(
            f"--namespace {namespace!r} is not a namespace name (lower-case letters, digits and '-', "
            "at most 63 characters)"
        )
    return f"{question.rstrip()}\n\nScope: namespace {namespace}."


def check_inputs(config: Config, question: str) -> None:
    """What a run would otherwise find out only after starting: an empty question, a trace folder
    that is a file, a mock cluster fixture that is not a cluster, a server that cannot be found or a
    context the kubeconfig lacks. Raises ConfigError (exit 2); writes nothing."""
    if not question.strip():
        raise ConfigError(
            'the question is empty: ask about the cluster, e.g. "Which pods in the production namespace '
            'are unhealthy, and why?"'
        )
    folder = config.trace_dir.expanduser()
    if folder.exists() and not folder.is_dir():
        raise ConfigError(
            f"the trace folder {folder} is a file: --trace-dir names a folder for the run's trace"
        )
    if config.cluster is not None and not config.mcp_command:
        from k8s_agent_mock_cluster import FixtureError, load_fixture

        try:
            load_fixture(config.cluster)
        except FixtureError as error:
            raise ConfigError(str(error)) from None
    from k8s_agent_harness.cluster.servers import resolve_server

    resolve_server(config)


async def ask(config: Config, question: str, **options: Any) -> RunResult:
    """Ask `question` with the configured implementation and endpoint, on the configured cluster.

    Options go to the implementation's `ask` (observer, approver, secrets, mcp).
    """
    ask_impl = ask_function(config.impl)
    with contextlib.ExitStack() as stack:
        config = stack.enter_context(served_cluster(config))
        if config.offline:
            from k8s_agent_scripted_llm import ScriptedModelServer, responder_for

            server = stack.enter_context(
                ScriptedModelServer(responder=responder_for(config.model), model=config.model)
            )
            config = dataclasses.replace(config, base_url=server.url)
        return await ask_impl(config, question, **options)


def serves_a_fixture_through_kubernetes(config: Config) -> bool:
    """Whether the run's mock cluster fixture is served to kubernetes-mcp-server by a fake
    Kubernetes API (`--cluster FILE --cluster-server kubernetes-mcp-server`)."""
    return config.cluster is not None and config.cluster_server == KUBERNETES_MCP_SERVER


@contextlib.contextmanager
def served_cluster(config: Config) -> Iterator[Config]:
    """The config of the run, with what it needs served for as long as the context lasts: for a
    fixture through kubernetes-mcp-server, a fake Kubernetes API holding it (as `eval` serves an
    incident), named in `config.kubeconfig`; else nothing. Raises ConfigError for a fixture that
    cannot be served."""
    if not serves_a_fixture_through_kubernetes(config):
        yield config
        return
    from k8s_agent.eval.kube_surface import fake_kubernetes
    from k8s_agent_mock_cluster import FixtureError

    assert config.cluster is not None
    with contextlib.ExitStack() as stack:
        try:
            kubeconfig = stack.enter_context(fake_kubernetes(config.cluster))
        except FixtureError as error:
            raise ConfigError(str(error)) from None
        yield dataclasses.replace(config, kubeconfig=kubeconfig)

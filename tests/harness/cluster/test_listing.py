"""The tool list as read from any server: paging to the end without a silent cap, stopping with a
reason where paging cannot be right, each tool once; and the names the model knows tools by."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable

import mcp_types
import pytest

from k8s_agent_harness.cluster.listing import MAX_TOOL_PAGES, MAX_TOOLS, Listing, list_tools
from k8s_agent_harness.cluster.tool_names import model_names

FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def tool(name: str) -> mcp_types.Tool:
    return mcp_types.Tool(name=name, input_schema={"type": "object"})


def listed(pages: Callable[[str | None], tuple[list[str], str | None]]) -> tuple[Listing, int]:
    """The listing of a server whose page for each cursor is `pages(cursor)`, and the pages asked for."""
    asked = 0

    async def fetch(cursor: str | None) -> mcp_types.ListToolsResult:
        nonlocal asked
        asked += 1
        names, following = pages(cursor)
        return mcp_types.ListToolsResult(tools=[tool(name) for name in names], next_cursor=following)

    return asyncio.run(list_tools(fetch)), asked


def test_a_tool_a_page_is_read_to_the_last_page() -> None:
    def pages(cursor: str | None) -> tuple[list[str], str | None]:
        page = int(cursor or 0)
        return [f"tool_{page}"], (str(page + 1) if page < 79 else None)

    listing, asked = listed(pages)

    assert [t.name for t in listing.tools] == [f"tool_{n}" for n in range(80)]
    assert asked == 80 and listing.problems == ()


def test_paging_stops_at_a_cursor_given_before() -> None:
    listing, asked = listed(lambda cursor: (["a", "b"] if cursor is None else ["c"], "loop"))

    assert [t.name for t in listing.tools] == ["a", "b", "c"] and asked == 2
    assert listing.problems == (
        "the server's tool list was read to page 2 (3 tools): it gave a cursor it had given before, so "
        "paging would never end; the rest is not used",
    )


def test_paging_stops_at_a_page_of_tools_listed_before_and_keeps_each_once() -> None:
    listing, asked = listed(lambda cursor: (["a", "b"], str(int(cursor or 0) + 1)))

    assert [t.name for t in listing.tools] == ["a", "b"] and asked == 2
    (problem,) = listing.problems
    assert "a page listed only tools it had listed before, so its pages repeat" in problem


def test_paging_stops_at_an_absurd_number_of_pages() -> None:
    listing, asked = listed(lambda cursor: ([], str(int(cursor or 0) + 1)))  # empty pages, new cursors

    assert asked == MAX_TOOL_PAGES and listing.tools == ()
    (problem,) = listing.problems
    assert f"it kept giving cursors after {MAX_TOOL_PAGES} pages" in problem


def test_paging_stops_at_an_absurd_number_of_tools() -> None:
    def pages(cursor: str | None) -> tuple[list[str], str | None]:
        page = int(cursor or 0)
        return [f"t{page}_{n}" for n in range(500)], str(page + 1)

    listing, asked = listed(pages)

    assert len(listing.tools) == MAX_TOOLS and asked == MAX_TOOLS // 500
    (problem,) = listing.problems
    assert f"it listed {MAX_TOOLS} tools or more" in problem


def test_one_page_of_more_tools_than_the_cap_is_cut_with_the_same_problem() -> None:
    listing, asked = listed(lambda cursor: ([f"t{n}" for n in range(MAX_TOOLS * 10 + 1)], None))

    assert [t.name for t in listing.tools] == [f"t{n}" for n in range(MAX_TOOLS)] and asked == 1
    assert listing.problems == (
        f"the server's tool list was read to page 1 ({MAX_TOOLS} tools): it listed {MAX_TOOLS} tools or "
        "more, more than any model can be offered; the rest is not used",
    )


def test_a_page_that_fills_the_cap_exactly_is_read_whole() -> None:
    listing, _ = listed(lambda cursor: ([f"t{n}" for n in range(MAX_TOOLS)] + ["t0"], None))

    assert len(listing.tools) == MAX_TOOLS
    assert listing.problems == (
        "the server listed 1 tool name more than once (t0): the first definition of it is used",
    )


def test_a_tool_listed_twice_is_kept_once_with_a_warning() -> None:
    listing, _ = listed(lambda cursor: (["a", "b", "a"], None) if cursor is None else ([], None))

    assert [t.name for t in listing.tools] == ["a", "b"]
    assert listing.problems == (
        "the server listed 1 tool name more than once (a): the first definition of it is used",
    )


@pytest.mark.parametrize(
    ("name", "alias"),
    [
        ("pods_list", "pods_list"),
        ("k8s.pods/list", "k8s_pods_list"),
        ("ünïcode tool", "_n_code_tool"),
    ],
)
def test_a_name_that_fits_is_kept_and_one_that_does_not_gets_an_alias_that_fits(
    name: str, alias: str
) -> None:
    assert model_names([name]) == {name: alias}


def test_colliding_and_long_names_get_the_real_name_s_hash() -> None:
    long = "x" * 80
    digest = {name: hashlib.sha256(name.encode()).hexdigest()[:8] for name in ("a.b", "a/b", long)}

    names = model_names(["a_b", "a.b", "a/b", long, "search_results"], reserved=["search_results"])

    assert names["a_b"] == "a_b"  # a name that fits is its own
    assert names["a.b"] == f"a_b_{digest['a.b']}" and names["a/b"] == f"a_b_{digest['a/b']}"
    assert names[long] == f"{'x' * 55}_{digest[long]}" and len(names[long]) == 64
    assert names["search_results"] != "search_results"  # the harness's own tool keeps its name
    assert all(FUNCTION_NAME.match(alias) for alias in names.values())
    assert len(set(names.values())) == len(names)


def test_an_alias_never_changes_when_the_list_changes() -> None:
    first = model_names(["k8s.pods/list"])

    later = model_names(["k8s.pods/list", "k8s_pods/list", "k8s_pods_list"], known=first)

    assert later["k8s.pods/list"] == first["k8s.pods/list"] == "k8s_pods_list"
    assert later["k8s_pods_list"] != "k8s_pods_list"  # the name is taken: it gets an alias of its own
    assert len(set(later.values())) == 3 and all(FUNCTION_NAME.match(alias) for alias in later.values())

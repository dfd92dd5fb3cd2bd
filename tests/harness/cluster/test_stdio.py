"""The stdio transport's reading, in process: lines cut at the cap without being held, the id of an
answer that cannot be read found at either end of its line, the client's own error for the request
it answers (and for nothing else), the bounded stderr tail."""

from __future__ import annotations

import json

import mcp_types

from k8s_agent_harness.cluster.stdio import (
    MAX_JSON_DEPTH,
    UNREAD_MARK,
    LineReader,
    LineSplitter,
    Oversized,
    StderrTail,
    nested_deeper_than,
    top_level_members,
    top_level_members_from_end,
)


def request(request_id: int | str, method: str = "tools/call") -> mcp_types.JSONRPCRequest:
    return mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method)


def error_of(message: object) -> mcp_types.JSONRPCError:
    assert message is not None
    error = message.message  # type: ignore[attr-defined]
    assert isinstance(error, mcp_types.JSONRPCError) and error.error.data == UNREAD_MARK
    return error


def test_lines_are_cut_across_chunks_and_a_line_past_the_cap_is_not_held() -> None:
    lines = LineSplitter(cap=10, window=3)

    assert lines.feed(b"abc\nde") == [b"abc"]
    assert lines.feed(b"f\n\n") == [b"def", b""]
    early, *rest = lines.feed(b"0123456789ABC")  # past the cap: known at once by its head
    assert rest == [] and isinstance(early, Oversized) and not early.complete and early.head == b"012"
    assert lines._line == bytearray()  # nothing of it is held
    (whole,) = [line for line in lines.feed(b"DEFGH" * 1000 + b"XYZ\nnext\n") if isinstance(line, Oversized)]
    assert (whole.head, whole.tail, whole.size, whole.complete) == (b"012", b"XYZ", 13 + 5003, True)
    assert lines.feed(b"last\n") == [b"last"]


def test_an_answer_s_id_is_found_at_the_top_level_of_either_end() -> None:
    head = b'{"jsonrpc":"2.0","result":{"id":99,"content":[{"id":"x"}]},"id":7,"more":"cut her'
    assert top_level_members(head)["jsonrpc"] == b'"2.0"'
    assert top_level_members(head)["id"] == b"7" and top_level_members(head)["result"] == b"{}"
    tail = b'ut here\\" still", "x":[1,{"id":98}],"id" : "a\\"b" , "jsonrpc":"2.0"}  '
    members = top_level_members_from_end(tail)
    assert json.loads(members["id"]) == 'a"b' and members["x"] == b"{}" and members["jsonrpc"] == b'"2.0"'
    assert top_level_members(b"not json") == {} and top_level_members_from_end(b"[1,2]") == {}


def test_an_answer_that_cannot_be_read_fails_its_request_and_nothing_else() -> None:
    reader = LineReader()
    for sent in (request(1), request(2), request(3), request("four")):
        reader.sent(sent)

    deep = b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":' + b"[" * 500 + b"]" * 500 + b"}}"
    assert error_of(reader.read(deep)).error.message == (
        f"the server's answer is nested deeper than {MAX_JSON_DEPTH} levels"
    )
    assert reader.read(deep) is None  # answered once: request 1 is no longer in flight
    huge = Oversized(b'{"result":{"content":"xxx', 40 << 20)
    huge.add_tail(b'xxx"},"jsonrpc":"2.0","id":"2"}', 4096)
    assert error_of(reader.read(huge)).id == 2
    garbage = b"\xff\xfe not JSON"
    assert reader.read(garbage) is None
    # A request of the server's with an id the client also uses is not an answer.
    assert reader.read(b'{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":[') is None
    broken = b'{"jsonrpc":"2.0","id":3,"result":{"content":[}'
    assert error_of(reader.read(broken)).error.message.startswith(
        "the server's answer is not a JSON-RPC message"
    )
    # A readable answer is passed on, invalid UTF-8 replaced.
    answer = reader.read(b'{"jsonrpc":"2.0","id":"four","result":{"text":"caf\xe9"}}')
    assert answer is not None and isinstance(answer.message, mcp_types.JSONRPCResponse)
    assert answer.message.result == {"text": "caf\N{REPLACEMENT CHARACTER}"}


def test_a_cancelled_request_is_no_longer_answered_by_the_client() -> None:
    reader = LineReader()
    reader.sent(request(5))
    reader.sent(
        mcp_types.JSONRPCNotification(
            jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 5}
        )
    )

    assert reader.read(b'{"jsonrpc":"2.0","id":5,"result":' + b"[" * 300) is None


def test_nesting_is_counted_outside_strings() -> None:
    assert nested_deeper_than(b"[" * 3 + b"]" * 3, 2)
    assert not nested_deeper_than(b'[["[[[[", "\\"[[["]]', 2)
    assert nested_deeper_than(b'{"a":[{"b":[1]}]}', 3) and not nested_deeper_than(b'{"a":[{"b":[1]}]}', 4)


def test_the_stderr_tail_keeps_the_last_bytes_and_counts_them_all() -> None:
    tail = StderrTail(keep=8)
    tail.write(b"0123456789")
    tail.write(b"abcdef")

    assert (tail.total, tail.held) == (16, 8)
    assert tail.since(0) == b"89abcdef" and tail.since(12) == b"cdef" and tail.since(16) == b""
    assert tail.since(0, most=3) == b"def"
    tail.write(b"x" * 1000)
    assert (tail.total, tail.held, tail.since(0)) == (1016, 8, b"x" * 8)

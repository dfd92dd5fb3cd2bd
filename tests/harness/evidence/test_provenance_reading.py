"""A result as provenance reads it (`Reading`): where a quote is, which record holds it, which of
its characters are the result's own, which line it is on, each generated and checked against a plain
reading of the same positions written here the slow way."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from k8s_agent_harness.evidence.grounding import ToolText
from k8s_agent_harness.evidence.provenance import Reading, Resource, informative, sources_of
from k8s_agent_harness.evidence.shapes import Record

LENGTH = 24


@st.composite
def laminar(draw: st.DrawFn, low: int, high: int, depth: int = 0) -> list[tuple[int, int]]:
    """Spans inside [low, high) that nest or lie apart (records do: an item inside a list, an
    event inside a describe block), adjacent ones included, no two the same."""
    spans: list[tuple[int, int]] = []
    position = low
    while position < high and draw(st.booleans()):
        start = draw(st.integers(position, high - 1))
        end = draw(st.integers(start + 1, high))
        spans.append((start, end))
        if depth < 2 and end - start > 2:
            inner = draw(laminar(start + 1, end - 1, depth + 1))
            spans.extend(span for span in inner if span != (start, end))
        position = end  # the next may start where this one ends
    return spans


def place(records: list[Record], start: int, end: int) -> tuple[Record | None, bool]:
    """The innermost record that holds [start, end); none and not free where one crosses its edge."""
    crossing = [
        r for r in records if r.start < end and start < r.end and not (r.start <= start and end <= r.end)
    ]
    if crossing:
        return None, False
    holding = [r for r in records if r.start <= start and end <= r.end]
    if not holding:
        return None, True
    return min(holding, key=lambda r: r.end - r.start), False


@given(spans=laminar(0, LENGTH), data=st.data())
def test_a_span_is_in_its_innermost_record_and_in_none_across_an_edge(
    spans: list[tuple[int, int]], data: st.DataObject
) -> None:
    records = [Record(Resource("pod", f"p{n}", None), start, end) for n, (start, end) in enumerate(spans)]
    reading = Reading("x" * LENGTH, sorted(records, key=lambda r: (r.start, -r.end)))
    start = data.draw(st.integers(0, LENGTH - 1))
    end = data.draw(st.integers(start + 1, LENGTH))

    assert reading.place(start, end) == place(records, start, end)


@st.composite
def echoed(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A text of words and marks with sorted, disjoint spans that repeat the call's arguments."""
    text = draw(st.from_regex(rf"[a-z0-9 .:/-]{{{LENGTH}}}", fullmatch=True))
    cuts = sorted(draw(st.lists(st.integers(0, LENGTH), max_size=8, unique=True)))
    pairs = [(cuts[n], cuts[n + 1]) for n in range(0, len(cuts) - 1, 2)]
    return text, [(low, high) for low, high in pairs if low < high]


@given(case=echoed(), data=st.data())
def test_a_span_s_own_characters_are_those_outside_every_echo(
    case: tuple[str, list[tuple[int, int]]], data: st.DataObject
) -> None:
    text, echoes = case
    reading = Reading(text, [], echoes)
    start = data.draw(st.integers(0, LENGTH))
    end = data.draw(st.integers(start, LENGTH))
    echoed_positions = {position for low, high in echoes for position in range(low, high)}
    own = "".join(text[position] for position in range(start, end) if position not in echoed_positions)

    assert reading.own_characters(start, end) == informative(own)


LINES = st.lists(
    st.from_regex(r"[ \t]{0,3}([a-z0-9]+( [a-z0-9]+)*)?[ \t]{0,3}", fullmatch=True), min_size=1, max_size=6
)


@given(lines=LINES, data=st.data())
def test_a_position_s_line_is_the_line_it_is_on_without_its_indentation_and_trailing_spaces(
    lines: list[str], data: st.DataObject
) -> None:
    text = "\n".join(lines)
    reading = Reading(text, [])
    position = data.draw(st.integers(0, len(text)))
    number = text.count("\n", 0, position)
    start = sum(len(line) + 1 for line in lines[:number])
    line = lines[number]

    if position == len(text) and text.endswith("\n"):
        return  # after the last line break: no line (the lines' reader has none there)
    stripped = line.strip()
    assert reading.line_of(position) == " ".join(stripped.split())
    if stripped:
        low = start + len(line) - len(line.lstrip())
        assert reading.line_span(position) == (low, low + len(stripped))
        assert reading.whole_line(low, low + len(stripped))
        assert not reading.whole_line(low, low + len(stripped) - 1)


@given(text=st.from_regex(r"[ab ]{0,16}", fullmatch=True), quote=st.from_regex(r"[ab]{1,3}", fullmatch=True))
def test_a_quote_is_found_at_every_place_it_starts_overlapping_ones_included(text: str, quote: str) -> None:
    reading = Reading(text, [])
    expected = [(match.start(), match.start() + len(quote)) for match in re.finditer(f"(?={quote})", text)]

    assert list(reading.occurrences(quote)) == expected


def test_the_strings_of_structured_content_are_each_a_line_in_its_own_record() -> None:
    """Structured content has no text: its decoded strings, one a line, are what a quote is found
    in, each string in the record of the object that holds it, from its first character to its last."""
    items = [
        {"name": "web-5c6b4d-k8m2n", "namespace": "shop", "status": "Running", "message": "ok"},
        {
            "name": "db-7f8d9c6b5-q2w4x",
            "namespace": "shop",
            "status": "CrashLoopBackOff",
            "message": "back-off",
        },
    ]
    (result,) = sources_of(
        [ToolText("c1", "pods_list", "(see the structured content)", "{}", structured={"items": items})]
    )
    structured = result.readings[-1]

    assert structured.text.split("\n") == [value for item in items for value in item.values()]
    start = 0
    for item in items:
        for value in item.values():
            record, free = structured.place(start, start + len(value))
            assert record is not None and record.resource.name == item["name"], (value, record)
            assert not free
            start += len(value) + 1
    # A quote across the two items' strings is in neither.
    seam = structured.text.index("ok\ndb")
    assert structured.place(seam, seam + len("ok\ndb")) == (None, False)

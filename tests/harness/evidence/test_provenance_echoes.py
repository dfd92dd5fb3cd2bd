"""Where a result only repeats the call's own arguments: generated echoes, found exactly.

A server may repeat what it was asked (a search its query, an error the name it could not find),
whole, cut, or in parts. What it repeats is the caller's words, never evidence of the cluster: the
spans found must be exactly the planted repetitions, in whatever case the server wrote them.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from k8s_agent_harness.evidence.provenance import MIN_CUT_ECHO, _echo_spans

# Free text (a query, a reason) has spaces; a filler of digits and marks shares no character with it.
FREE_TEXT = (
    st.lists(st.from_regex(r"[A-Za-z]{2,9}", fullmatch=True), min_size=3, max_size=9)
    .map(" ".join)
    .filter(lambda text: len(text) > MIN_CUT_ECHO + 2)
)
FILLER = st.from_regex(r"[0-9#%+]{0,12}", fullmatch=True)
CASES = st.sampled_from([str, str.lower, str.upper, str.swapcase])


@st.composite
def parts_of(draw: st.DrawFn, echo: str) -> str:
    length = draw(st.integers(MIN_CUT_ECHO, len(echo) - 1))
    start = draw(st.integers(0, len(echo) - length))
    return echo[start : start + length]


@given(data=st.data(), echo=FREE_TEXT, count=st.integers(1, 3), at_the_end=st.booleans())
def test_the_parts_of_free_text_a_result_repeats_are_found_exactly_in_any_case(
    data: st.DataObject, echo: str, count: int, at_the_end: bool
) -> None:
    text = data.draw(FILLER)
    planted = []
    for number in range(count):
        part = data.draw(CASES)(data.draw(parts_of(echo)))
        planted.append((len(text), len(text) + len(part)))
        text += part
        if number < count - 1 or not at_the_end:  # the last part may end the text
            text += "0" + data.draw(FILLER)

    assert _echo_spans(text, [echo]) == planted
    # Fewer characters than that are no echo: a few words any text may share with the question.
    short = data.draw(
        st.integers(0, len(echo) - MIN_CUT_ECHO + 1).map(lambda at: echo[at : at + MIN_CUT_ECHO - 1])
    )
    assert _echo_spans(f"#{short}#", [echo]) == []


NAMES = st.from_regex(r"[a-z]{3,8}-[a-z]{2,6}-[0-9a-f]{8,10}-[a-z0-9]{5}", fullmatch=True)


@given(
    name=NAMES,
    data=st.data(),
    cut=st.sampled_from(["...", "\u2026", '"', "'", "`", ")", "]", "\n", ""]),
)
def test_a_name_repeated_cut_short_is_found_up_to_its_cut(name: str, data: st.DataObject, cut: str) -> None:
    kept = data.draw(st.integers(MIN_CUT_ECHO, len(name) - 1))
    before = data.draw(FILLER) + " "
    text = before + name[:kept] + cut

    assert _echo_spans(text, [name]) == [(len(before), len(before) + kept)]
    # Cut with nothing that says so (another character follows), it is another name: no echo.
    assert _echo_spans(before + name[:kept] + "#", [name]) == []
    # At the text's start, and more than once: each repetition is found.
    twice = f"{name[:kept]}... and {name[:kept]}..."
    assert _echo_spans(twice, [name]) == [(0, kept), (kept + 8, 2 * kept + 8)]
    # Whole, it is the name itself.
    assert _echo_spans(before + name.upper() + " 0", [name]) == [(len(before), len(before) + len(name))]

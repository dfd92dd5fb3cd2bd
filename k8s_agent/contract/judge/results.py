"""C10: each call id answered once, in call order, with its own call's whole result (or an
excerpt that says it is one); a result line whose secret was redacted, recognised by what is
left around the mark."""

from __future__ import annotations

import re
from collections.abc import Sequence

from k8s_agent import scenarios
from k8s_agent.contract.judge.checks import Runs, _Check, _ending, _ran, _runs
from k8s_agent.contract.judge.wire import (
    EXCERPT_WORDS,
    FINGERPRINT_LINES,
    Judgement,
    _mentions,
    _request,
    _result_print,
    first_answer,
    messages,
    proposals,
    readable,
    receipts,
    result_of,
)
from k8s_agent_harness.evidence.provenance import normalised
from k8s_agent_harness.printout import plural


def shows_result(answer: str, result: str) -> str | None:
    """None when an answer shows a whole result (every line of it, whitespace aside; a line with a
    secret redacted counts as shown), or says it is an excerpt and shows part of it; else the first
    line of the result it leaves out."""
    said = readable(answer)
    lines = [normalised(line) for line in result.splitlines() if line.strip()]
    missing = [
        line
        for at, line in enumerate(lines)
        if not line_shown(line, said) and not redacted_shown(line, said, lines[at - 1] if at else "")
    ]
    if not missing or (len(missing) < len(lines) and _mentions(said, *EXCERPT_WORDS)):
        return None
    return missing[0]


def line_shown(line: str, said: str) -> bool:
    """Whether an answer (read) shows a line of a result as it is, whitespace aside (a line whose
    secret the answer redacted: `redacted_shown`)."""
    return normalised(line) in normalised(said)


SECRET_KEY = r"(?:token|password|passwd|pwd|secret|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credentials?|auth(?:orization)?)"


SECRET_VALUE = re.compile(
    r"(?i)(?:bearer\s+(?P<bearer>[^\s\"',;}]+)|"
    + SECRET_KEY
    + r"\w*[\"']?\s*[:=]\s*[\"']?)(?P<value>(?:bearer\s+)?[^\s\"',;}]+)?"
    r"|://[^/\s:@]+:(?P<password>[^@\s/]+)@"
    r"|(?<![\w+/.-])(?P<token>(?=[\w+/.-]*\d)(?=[\w+/.-]*[A-Za-z])[\w+/.-]{24,}=*)"
)
"""Where a result line holds a secret: the value of a key named like a token, password, secret or
key (or after `Bearer`), a connection URL's password, a long token of letters and digits."""


NEXT_VALUE = re.compile(r"(?i)^(?P<key>-?\s*value\s*:\s*)(?P<value>\S.*)$")
"""A YAML `value:` line, which holds a secret when the line before names one (`- name: DB_PASSWORD`)."""


MARK_WIDTH = 40
"""The most characters a mark put in place of a secret may take."""


def redacted_shown(line: str, said: str, before: str = "") -> bool:
    """Whether an answer shows a result line with its secrets redacted, whatever the mark: the answer
    has a line holding what the result line holds around each secret, in order, with in each
    secret's place a mark of at most MARK_WIDTH characters that is not the secret (`[masked]`,
    `<hidden>`, `***`, ...). A secret is what SECRET_VALUE finds (or a `value:` after a line naming
    one); the rest of the line must be there as it was."""
    spans = [
        match.span(group)
        for match in SECRET_VALUE.finditer(line)
        for group in ("bearer", "value", "password", "token")
        if match.group(group)
    ]
    follows = NEXT_VALUE.match(line)
    if follows and re.search(SECRET_KEY, before, re.IGNORECASE):
        spans.append(follows.span("value"))
    if not spans:
        return False
    spans.sort()
    pieces, secrets, at = [], [], 0
    for start, end in spans:
        if start < at:
            continue
        pieces.append(line[at:start])
        secrets.append(line[start:end])
        at = end
    pieces.append(line[at:])
    if sum(len(piece.strip()) for piece in pieces) < min(len(line) // 4, 6):
        return False  # too little of the line is left to say it is this line
    return any(_around_marks(normalised(shown), pieces, secrets) for shown in said.splitlines())


def _around_marks(shown: str, pieces: Sequence[str], secrets: Sequence[str]) -> bool:
    """Whether `shown` holds `pieces` in order with a short mark, not the secret, between each two."""
    start = shown.find(pieces[0]) if pieces[0] else 0
    while start >= 0:
        at, held = start + len(pieces[0]), True
        for secret, piece in zip(secrets, pieces[1:], strict=True):
            found = shown.find(piece, at) if piece else len(shown)  # a secret at the end: the rest
            mark = shown[at:found] if found >= 0 else ""
            if found < 0 or not mark.strip() or len(mark) > MARK_WIDTH or secret in mark:
                held = False
                break
            at = found + len(piece)
        if held:
            return True
        start = shown.find(pieces[0], start + 1) if pieces[0] else -1
    return False


def c10(observed: Runs) -> Judgement:
    """In every request of every scenario, each call id is answered exactly once, in call order,
    before the next message, with its own call's result, whole (or an excerpt that says it is one);
    the mixed round's calls are all answered."""
    check = _Check("C10", unobservable="no request carried tool calls")
    rounds = 0
    for run in _ran(check, _runs(observed)):
        for number, body in enumerate(run.requests, start=1):
            listed = messages(body)
            seen: set[str] = set()  # the call ids of the conversation so far: no two calls share one
            for index, message in enumerate(listed):
                ids = [str(call.get("id")) for call in message.get("tool_calls") or []]
                if message.get("role") != "assistant" or not ids:
                    continue
                shared = sorted({i for i in ids if i in seen or ids.count(i) > 1})
                seen.update(ids)
                if shared:
                    check.fail(
                        run.scenario,
                        f"calls share the id {', '.join(shared)}",
                        _request(number, f"assistant calls {ids}"),
                    )
                answers: list[str] = []
                for following in listed[index + 1 :]:
                    if following.get("role") != "tool":
                        break
                    answers.append(str(following.get("tool_call_id")))
                rounds += 1
                check.applied.append(run.scenario)
                if sorted(answers) != sorted(ids):
                    check.fail(
                        run.scenario,
                        f"calls answered {answers} for {ids}",
                        _request(number, f"assistant calls {ids}"),
                    )
                elif answers != ids:
                    check.fail(
                        run.scenario,
                        "answers out of call order",
                        _request(number, f"calls {ids}, answers {answers}"),
                    )
        made = [p for p in proposals(run) if p.valid]
        served: dict[str, int] = {}
        own_prints = {p.signature: _result_print(run, p) for p in made}
        for proposal in made:
            result = result_of(run, proposal.tool, proposal.arguments)
            answered = first_answer(run, proposal.call_id)
            if result is None or answered is None:
                continue
            said = readable(answered[1])
            shown = normalised(said)
            expected = own_prints[proposal.signature]
            served[proposal.signature] = served.get(proposal.signature, 0) + 1
            if served[proposal.signature] > len(receipts(run, proposal.tool, proposal.arguments)):
                # A repeat answered without the server (from a cache, or refused): it may carry its own
                # result or none, never another call's.
                others = [
                    sig
                    for sig, lines in own_prints.items()
                    if sig != proposal.signature
                    and lines
                    and lines != expected
                    and all(line in shown for line in lines)
                ]
                if others and not (expected and all(line in shown for line in expected)):
                    check.fail(
                        run.scenario,
                        f"call {proposal.call_id} ({proposal.tool}) was answered with another call's result",
                        _request(answered[0], answered[1]),
                    )
                continue
            if result.get("is_error"):
                continue  # a failure shown to the model is C9's
            first = [line for line in str(result.get("text", "")).splitlines() if line.strip()]
            shown_first = [
                line_shown(line, said)
                or redacted_shown(normalised(line), said, normalised(first[at - 1]) if at else "")
                for at, line in enumerate(first[:FINGERPRINT_LINES])
            ]
            excerpt = any(shown_first) and _mentions(said, *EXCERPT_WORDS)
            if expected and not all(shown_first) and not excerpt:
                check.fail(
                    run.scenario,
                    f"call {proposal.call_id} ({proposal.tool}) was answered with something else than its own result",
                    _request(answered[0], answered[1]),
                    f"its result begins: {expected[0]}",
                )
                continue
            left_out = shows_result(answered[1], str(result.get("text", "")))
            if left_out is not None:
                check.fail(
                    run.scenario,
                    f"call {proposal.call_id} ({proposal.tool}) was answered with part of its result, "
                    "without saying it is an excerpt",
                    _request(answered[0], answered[1]),
                    f"left out: {left_out}",
                )
        if run.scenario == scenarios.C10.name:
            unanswered = [p.call_id for p in proposals(run) if first_answer(run, p.call_id) is None]
            if unanswered:
                check.fail(
                    run.scenario, f"the mixed round's calls {unanswered} were never answered", _ending(run)
                )
    return check.judgement(
        f"{plural(rounds, 'round')} of calls, each answered once, in order, with its own whole result"
    )

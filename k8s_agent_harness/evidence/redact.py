"""Secret redaction, applied before text reaches the model, a trace, a report or the terminal."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from k8s_agent_harness.evidence.shapes.secrets import (
    CLIENT_FLAGS,
    NOT_SECRET,
    SECRET_WORD,
    SECRET_WORDS,
    Target,
    is_reference,
    located_targets,
    looks_secret_name,
    names_an_object,
    secret_flag,
    text_targets,
    value_targets,
)

REDACTED = "[REDACTED]"
_SCALARS = frozenset({int, float, bool, type(None)})
MEMO_SIZE = 512

# A whole run of key characters that holds a secret word, as found in text. It starts where a run
# starts and never backtracks, so that a long `a-a-a-...` costs one pass, not n².
_KEY_IN_TEXT = (
    rf"(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*?(?:{SECRET_WORD}|(?<![A-Za-z])(?:{SECRET_WORDS})(?![a-z])))"
    r"[A-Za-z0-9_.-]++"
)

_PATTERNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    # Each pattern, its replacement, and the words (lower case) one of which a text must hold for the
    # pattern to find anything: a result of megabytes is searched for them first, at a fraction of
    # the cost of running the pattern over it.
    # Authorization headers and bearer tokens anywhere in text.
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {REDACTED}", ("bearer", "basic")),
    # Well-known token shapes: JWTs, OpenAI-style keys, GitHub, GitLab and Slack tokens, AWS access
    # keys, Stripe keys, Google API keys, Azure connection strings' keys, Slack webhooks.
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), REDACTED, ("eyj",)),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"), REDACTED, ("sk-",)),
    (
        re.compile(r"\b(?:ghp|gho|ghs|ghu|ghr|xox[abprs])[_-][A-Za-z0-9-]{16,}"),
        REDACTED,
        ("ghp", "gho", "ghs", "ghu", "ghr", "xox"),
    ),
    (re.compile(r"\b(?:github_pat_|glpat-)[A-Za-z0-9_-]{16,}"), REDACTED, ("github_pat_", "glpat-")),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), REDACTED, ("akia",)),
    (re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"), REDACTED, ("_live_", "_test_")),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), REDACTED, ("aiza",)),
    (
        re.compile(r"(?i)\b(AccountKey|SharedAccessKey)=[^;\s\"'\\]+"),
        rf"\1={REDACTED}",
        ("accountkey=", "sharedaccesskey="),
    ),
    (
        re.compile(r"(hooks\.slack\.com/services/[A-Za-z0-9]+/[A-Za-z0-9]+/)[A-Za-z0-9]+"),
        rf"\1{REDACTED}",
        ("hooks.slack.com",),
    ),
    # Well-known clients' secret flags in a command line: `redis-cli -a PW`, `curl -u user:PW`,
    # `mysql -pPW`, `sshpass -p PW`, `echo PW | docker login --password-stdin`; redis MONITOR's AUTH.
    (
        re.compile(r"""(\bredis-cli\b[^\n|;&]*?\s-a\s+(\\?["']?))[^\s"'\\]+"""),
        rf"\1{REDACTED}",
        ("redis-cli",),
    ),
    (
        re.compile(r"""(\bcurl\b[^\n|;&]*?\s(?:-u|--user|--proxy-user)\s+\\?["']?[^\s:"'\\]*:)[^\s"'\\]+"""),
        rf"\1{REDACTED}",
        ("curl",),
    ),
    (re.compile(r"""(\bmysql(?:dump|admin)?\b[^\n|;&]*?\s-p)[^\s"'\\]+"""), rf"\1{REDACTED}", ("mysql",)),
    (re.compile(r"""(\bsshpass\s+-p\s+\\?["']?)[^\s"'\\]+"""), rf"\1{REDACTED}", ("sshpass",)),
    (
        re.compile(r"""(\becho\s+\\?["']?)[^\s"'\\|]+(\\?["']?\s*\|[^\n|]*--password-stdin)"""),
        rf"\1{REDACTED}\2",
        ("--password-stdin",),
    ),
    (re.compile(r'("AUTH") "[^"\n]*"(?: "(?![A-Z]+")[^"\n]*")?'), rf'\1 "{REDACTED}"', ('"auth"',)),
    # The password of a URL with credentials (postgres://app:pw@db/x, redis://:pw@cache); the user
    # name stays, and so does a password the server already masked (`app:*****@`): it is no secret,
    # and a quote of the line as shown must still be found.
    (
        re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*+://[^\s:/@\"'<>]*+):(?!\*++@)[^\s/@\"'<>]++@"),
        rf"\1:{REDACTED}@",
        ("://",),
    ),
)


def _well_known(text: str) -> str:
    """`text` with each well-known shape of a secret redacted."""
    lowered = text.lower()
    for pattern, replacement, words in _PATTERNS:
        if any(word in lowered for word in words):
            text = pattern.sub(replacement, text)
    return text


# A secret-looking KEY with its value, in the three shapes secrets travel in. Prose such as
# "failed to authorize: 401" is left alone: a key must look like a field, not like a sentence.
_NOT_A_VALUE = r"""
    (?!<set\ to\ the\ key)                 # kubectl's reference to a Secret is not a value
    (?!\d+\ bytes[ \t]*$)                   # nor describe's size of a Secret's value
    (?!(?:bearer|basic)\s)                  # left to the bearer pattern, which keeps the scheme
"""
# A quoted value up to its closing quote (a backslash escapes one; the other quote is text);
# possessive, so that a quote never closed costs one pass, not an exponential search.
_QUOTED = r"""(?P<quote>["'])(?P<quoted>(?:[^"'\\\n]++|\\.|(?!(?P=quote))["'])*+)(?P=quote)"""
_UNQUOTED = (
    r"""(?:(?![ \t]+(?:-|[A-Za-z0-9_.-]+=)|[;&][A-Za-z0-9_.-]+=|\\[nrt"\\])[^\s"',}}]"""
    r"""|[ \t](?![ \t]*(?:-|[A-Za-z0-9_.-]+=|$)))+"""
)
_KEY_VALUE_SHAPES = (
    # YAML, `kubectl describe` and env listings: "  DB_PASSWORD:  value" at the start of a line
    # (the key may be quoted); an unquoted value is the rest of the line: over-redact, never leak.
    re.compile(
        rf"(?imx)(?P<key>^[ \t]*(?:-[ \t]+)?(?P<q>[\"']?){_KEY_IN_TEXT}(?P=q))(?P<sep>[ \t]*:[ \t]*)"
        rf"{_NOT_A_VALUE}(?:{_QUOTED}|(?P<value>[^\s\"'][^\n]*))"
    ),
    # JSON and Python reprs anywhere: "token": "value", 'token': b'value', "pin": 1234. An unquoted
    # value must end there (a comma, a brace, the line's end): in Go's `failed to get secret
    # "api-token": secrets "api-token" not found` or a kubelet event's `volume "api-token" : secret
    # "x" not found` the words after the colon are the message, not a value.
    re.compile(
        rf"""(?imx)(?P<key>["']{_KEY_IN_TEXT}["'])(?P<sep>[ \t]*:[ \t]*){_NOT_A_VALUE}
        (?:{_QUOTED}|(?P<bare>(?!(?:null|true|false|None|True|False)\b)[^\s"'{{\[,}}\]][^\s,}}\]]*)
            (?=[ \t]*(?:[,}}\]]|$)))"""
    ),
    # A log line's `KEY: value` past its start: `msg="login" password: hunter2`, `{user: bob, token:
    # abc}`. The value is one word, and it must end the line, a quoted message or a flow mapping's
    # entry, or be followed by the next `key:` or `key=` pair: in "failed to fetch token: serviceaccounts
    # "api" not found" or "token: context deadline exceeded" the words after the colon are the message.
    re.compile(
        rf"""(?imx)(?<=[ \t{{,(\[])(?P<key>{_KEY_IN_TEXT})(?P<sep>:[ \t]+){_NOT_A_VALUE}
        (?:{_QUOTED}|(?P<value>(?!(?:null|true|false|None|True|False|<[^\s>]*>)(?:[\s"',}})\]]|$))
            [^\s"'{{\[,}})\]][^\s"',}})\]]*)
            (?=[ \t]*(?:[,}})\]]|$)|["']|[ \t]+[A-Za-z0-9_.-]+(?::[ \t]|=)))"""
    ),
    # Shell and log lines anywhere: DB_PASSWORD=value, --api-key=value, a properties file's
    # `spring.datasource.password = value` at the start of a line. An unquoted value ends at a
    # line's end (also an escaped one), a quote, or where the next pair or flag starts: a space and
    # `-` or `KEY=`, a `;` or `&` and `KEY=` (connection strings, query strings).
    re.compile(
        rf"(?imx)(?P<key>(?:^[ \t]*(?=[A-Za-z0-9_.-]+[ \t]+=))?{_KEY_IN_TEXT})(?P<sep>[ \t]*=[ \t]*){_NOT_A_VALUE}"
        rf"(?:{_QUOTED}|(?P<value>{_UNQUOTED}))"
    ),
    # Go's `%+v` of a struct: `{Host:db Password:value Name:orders}`.
    re.compile(
        rf"(?i)(?<=[{{ ])(?P<key>{_KEY_IN_TEXT})(?P<sep>:)(?P<value>[^\s{{}}\[\]:,\"'][^\s{{}}\[\],\"']*)"
    ),
    # JSON inside a quoted string: `body="{\"access_token\":\"value\"}"`.
    re.compile(
        rf"""(?i)(?P<key>(?P<bs>\\+)"{_KEY_IN_TEXT}(?P=bs)")(?P<sep>\s*:\s*)"""
        rf"""(?P<value>(?P=bs)"(?:(?!(?P=bs)")[^\n])+(?P=bs)")"""
    ),
)

# Every key the shapes above redact holds one of these: each shape runs on the lines that do (a key
# and its value never span two lines), not over every line of a result of megabytes.
_KEY_WORDS = re.compile(r"pass|pwd|secret|token|key|credential|dsn|salt|hmac|signing", re.IGNORECASE)


def _key_values(text: str) -> str:
    """`text` with each key-value shape's secret values redacted, on the lines that may hold one."""
    parts: list[str] = []
    at = 0  # the end of what is copied
    start = end = -1  # the run of lines being gathered
    for found in _KEY_WORDS.finditer(text):
        if found.start() < end:
            continue
        line_start = text.rfind("\n", 0, found.start()) + 1
        line_end = text.find("\n", found.end())
        line_end = len(text) if line_end < 0 else line_end
        if line_start > end + 1:  # not the next line: the gathered run is done
            if start >= 0:
                parts += [text[at:start], _shapes(text[start:end])]
                at = end
            start = line_start
        elif start < 0:
            start = line_start
        end = line_end
    if start >= 0:
        parts += [text[at:start], _shapes(text[start:end])]
        at = end
    return "".join(parts) + text[at:]


def _shapes(lines: str) -> str:
    for shape in _KEY_VALUE_SHAPES:
        lines = shape.sub(_redact_key_value, lines)
    return lines


_PEM_BEGIN = re.compile(r"-----BEGIN (?P<kind>[A-Z0-9 ]{0,40})PRIVATE KEY-----")
# What is left of a block that was cut before its END line (also JSON-escaped): the headers of a
# legacy encrypted key (RFC 1421: `Proc-Type:`, `DEK-Info:`, then a blank line), then base64 lines.
_PEM_LINE_BREAK = r"(?:\r?\n|(?:\\r)?\\n)"
_PEM_HEADERS = rf"(?:(?:{_PEM_LINE_BREAK}[ \t]*(?:Proc-Type|DEK-Info):[^\r\n\\\"]*)+(?:{_PEM_LINE_BREAK}[ \t]*(?={_PEM_LINE_BREAK}))?)?"
_PEM_BODY = re.compile(
    rf"{_PEM_HEADERS}(?:{_PEM_LINE_BREAK}[ \t]*[A-Za-z0-9+/=]+(?=[ \t]*(?:\r?\n|\\[rn]|[\"',]|$)))*"
)
_PEM_SPAN = 64 * 1024
"""The farthest a block's END line is looked for: a key is a few KB, and the search stays linear."""


def _without_private_keys(text: str) -> str:
    """Every PEM private key block's body replaced, its BEGIN and END lines kept."""
    if "PRIVATE KEY-----" not in text:
        return text
    parts: list[str] = []
    at = 0
    for begin in _PEM_BEGIN.finditer(text):
        if begin.start() < at:
            continue  # inside a block already redacted
        parts += [text[at : begin.end()], REDACTED]
        end = text.find(f"-----END {begin['kind']}PRIVATE KEY-----", begin.end(), begin.end() + _PEM_SPAN)
        body = _PEM_BODY.match(text, begin.end())
        at = end if end >= 0 else (body.end() if body else begin.end())
    return "".join(parts) + text[at:]


def _redact_key_value(match: re.Match[str]) -> str:
    key = match["key"].strip(" \t-\"'")
    if key.lower() in NOT_SECRET or names_an_object(key):
        return match[0]
    groups = match.groupdict()
    if match["sep"].strip() == "=" and match["sep"] != "=":
        end = match.string.find("\n", match.start("sep"))
        rest = match.string[match.start("sep") : end if end >= 0 else None]
        if "(" in rest or "[" in rest:
            return match[0]  # `password = os.environ["DB_PASSWORD"]` is code in a traceback, not a value
    unquoted = groups.get("bare") or (groups.get("value") if not groups.get("bs") else None)
    if unquoted is not None and match["key"].rstrip().endswith(("'", '"')):
        if unquoted.startswith(("{", "[")):
            return match[0]  # `"Secret": {"name": "db-creds"}`: the fields inside are judged one by one
        inline = groups.get("bare") is not None  # not at the start of a line
        if inline and match["sep"].startswith((" ", "\t")) and not _NUMBER.fullmatch(unquoted):
            return match[0]  # `volume "x-token" : timeout` is a kubelet event; `"password" : 1234` a value
    if groups.get("quote"):
        if not match["quoted"]:
            return match[0]  # an empty value hides nothing
        return f"{match['key']}{match['sep']}{match['quote']}{REDACTED}{match['quote']}"
    if groups.get("bs"):  # a value in escaped quotes keeps them
        return f'{match["key"]}{match["sep"]}{match["bs"]}"{REDACTED}{match["bs"]}"'
    return f"{match['key']}{match['sep']}{REDACTED}"


_NUMBER = re.compile(r"-?\d[\d.eE+-]*")

# Every pattern above, and every place an object holds a secret (shapes/secrets.py), needs one of
# these (in any case) in the text. Most tool results have none, and one search for them is far
# cheaper than running every pattern. The words each well-known shape needs, and the clients whose
# flags take a secret, are taken from their tables: a shape added there is looked for here.
_TRIGGER_WORDS = tuple(
    dict.fromkeys(
        (
            "pass", "pwd", "secret", "token", "key", "credential", "auth", "dsn", "salt", "hmac", "signing",
            "cookie", "stringdata", "opaque", ".io/", "helm.sh/",
            # A URL's password is looked for by `_USERINFO` below: `://` alone is in every URL.
            *(word for _, _, words in _PATTERNS for word in words if word != "://"),
            *CLIENT_FLAGS,
        )
    )
)  # fmt: skip
_TRIGGERS = re.compile("|".join(re.escape(word) for word in _TRIGGER_WORDS) + r"|://[^\s/@]+@", re.IGNORECASE)
_USERINFO = re.compile(r"://[^\s/@]+@")


def _might_hold_a_secret(text: str) -> bool:
    """Whether `_TRIGGERS` finds something in `text`. ASCII text (most tool output) is lower-cased
    once and searched for each word, an order of magnitude faster than the case-blind alternation
    on a result of megabytes; other text takes the regular expression (Unicode case rules)."""
    if not text.isascii():
        return _TRIGGERS.search(text) is not None
    lowered = text.lower()
    return any(word in lowered for word in _TRIGGER_WORDS) or (
        "://" in text and _USERINFO.search(text) is not None
    )


# -- secrets in what is left of an object when it cannot be read whole (a cut or prefixed result) --

_QUOTED_VALUE = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*')"""
# An env entry in YAML, its `value:` on the line after its `name:` at the same column (kubectl and
# Go's YAML both print the name first): the value, and any deeper line under it (a block scalar).
_YAML_PAIR = re.compile(
    rf"""(?m)^(?P<lead>[ \t]*-?[ \t]*)name:[ \t]*(?P<name>{_QUOTED_VALUE}|[^\s"'#]+)[ \t]*\r?\n"""
    rf"""(?P<indent>[ \t]*)value:[ \t]*(?P<value>[^\n]*(?:\n(?P=indent)[ \t]+[^\n]*)*)"""
)
# The same written value first (a client that prints the keys as its object holds them), a value of
# one line.
_YAML_PAIR_VALUE_FIRST = re.compile(
    r"""(?m)^(?P<lead>[ \t]*-?[ \t]*)value:[ \t]*(?P<value>[^\n]*)\n"""
    rf"""(?P<indent>[ \t]*)name:[ \t]*(?P<name>{_QUOTED_VALUE}|[^\s"'#]+)[ \t]*$"""
)
# The same in JSON, pretty or compact, the name first or last (and JSON inside a JSON string).
_Q = r'(?P<bs>\\*)"'
# A JSON string at the escaping `bs` (`"` in a result, `\"` in a JSON string inside it, `\\\"` one
# deeper): its body runs to the quote of that escaping, a run of backslashes as long as `bs` plus any
# number of escaped backslashes (each `2 * len(bs) + 2` long) before a quote. A quote escaped deeper
# (`\"` in a result, `\\\"` in a string in it) is part of the body.
_STRING_END = r'(?:(?P=bs)(?P=bs)\\\\)*+(?P=bs)"'
_STRING_BODY = rf"(?:(?!(?<!\\){_STRING_END})[^\n])*+"
_JSON_VALUE = rf'(?:(?P=bs)"{_STRING_BODY}{_STRING_END}|-?\d[\d.eE+-]*)'
# An env entry written value first, cut short after its value: the name that would say whether the
# value is a secret is not in the text, so the value is hidden.
_CUT_BEFORE_ITS_NAME = (
    re.compile(r"""(?m)^[ \t]*-[ \t]*value:[ \t]*(?P<value>[^\s][^\n]*)\s*\Z"""),
    re.compile(
        rf"""\{{\s*(?P<bs>\\*)"value(?P=bs)"\s*:\s*(?P<value>(?P=bs)"{_STRING_BODY}{_STRING_END})\s*,?\s*\Z"""
    ),
)
_JSON_PAIRS = (
    re.compile(
        rf"""{_Q}name(?P=bs)"\s*:\s*(?P=bs)"(?P<name>[^"\\\s]{{1,253}})(?P=bs)"\s*,\s*"""
        rf"""(?P=bs)"value(?P=bs)"\s*:\s*(?P<value>{_JSON_VALUE})"""
    ),
    re.compile(
        rf"""{_Q}value(?P=bs)"\s*:\s*(?P<value>{_JSON_VALUE})\s*,\s*"""
        rf"""(?P=bs)"name(?P=bs)"\s*:\s*(?P=bs)"(?P<name>[^"\\\s]{{1,253}})(?P=bs)"""
        '"'
    ),
)
# A secret-looking flag and the item after it: `--db-password VALUE` on a command line, a describe
# `Args:` list (the value on the next line), a YAML list (`- --token` then `- VALUE`), a JSON list.
_FLAG_THEN_VALUE = re.compile(
    r"""(?P<flag>(?<![\w.-])--?[A-Za-z][A-Za-z0-9_.-]*+)(?P<close>\\*+["']?+)(?:"""
    # the value on the next line (a describe `Args:` list, a YAML list): the whole line
    r"""(?P<line>[ \t]*+\r?\n[ \t]*+(?:-[ \t]++)?+)(?P<open_line>\\*+["']?+)"""
    r"""(?P<value_line>(?![\s-]|\[REDACTED\])[^\n"']+)"""
    # the value after a space (a command line) or a comma (a list): one word
    r"""|(?P<sep>[ \t]++|\s*+,\s*+)(?P<open>\\*+["']?+)(?P<value>(?![\s-]|\[REDACTED\])[^\s"'\\,\]]+))"""
)
# A Secret's `data:` or `stringData:` block in YAML: each line under it.
_YAML_DATA = re.compile(r"(?m)^(?P<indent>[ \t]*)(?P<key>data|stringData):[ \t]*\r?\n")
_YAML_DATA_ENTRY = re.compile(
    r"(?P<key>[ \t]*(?:[^\s:#][^:\n]*|\"[^\"\n]*\"|'[^'\n]*')[ \t]*:[ \t]*)(?P<value>[^\n]*)"
)
_JSON_DATA = re.compile(
    r'(?P<bs>\\*)"(?P<key>data|stringData)(?P=bs)"\s*:\s*\{(?P<body>[^{}]*)(?P<end>\}|\Z)'
)
_JSON_DATA_ENTRY = re.compile(
    rf'(?P<key>(?P<bs>\\*)"{_STRING_BODY}{_STRING_END}\s*:\s*)(?P<value>(?P=bs)"{_STRING_BODY}{_STRING_END})'
)
_MENTIONS_A_SECRET = re.compile(
    r"""(?i)\bkind\\*["']?\s*:\s*\\*["']?secret\b|\bsecretlist\b|\btype\\*["']?\s*:\s*\\*["']?"""
    r"""(?:opaque\b|[a-z0-9.-]+\.(?:io|sh)/)"""
)
_NAMES_A_KIND = re.compile(r"""\bkind\\*["']?\s*:""")


def _data_may_be_secret(text: str) -> bool:
    """Whether a `data` block in `text` may be a Secret's: the text says it is one, or says of no
    object what it is (a Secret cut short before its `kind`, which kubectl prints after `data`)."""
    return _MENTIONS_A_SECRET.search(text) is not None or _NAMES_A_KIND.search(text) is None


_DATA_KEY = re.compile(r"""(?m)^[ \t]*data:|\\*"data\\*"\s*:""")


def _cut_short_from_a_secret(text: str) -> bool:
    """What may be a secret in a text cut short, without a word that says so: a `data` block in a
    text that names no kind (a Secret's data keys and base64 values name no secret), an env entry's
    value whose name was cut away."""
    # the words first: one substring search each, far cheaper than the patterns on a result of megabytes
    if "data" in text and _DATA_KEY.search(text) is not None and _NAMES_A_KIND.search(text) is None:
        return True
    return "value" in text and any(pattern.search(text) is not None for pattern in _CUT_BEFORE_ITS_NAME)


def _unquoted_name(name: str) -> str:
    return name[1:-1] if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'" else name


def _hidden(value: str) -> str:
    """A value replaced by the mark, its quotes kept (a JSON string stays a string)."""
    stripped = value.rstrip()
    for quote in ('\\"', '"', "'"):
        at = len(stripped) - len(stripped.lstrip("\\"))
        if stripped[at:].startswith(quote[-1]) and stripped.endswith(quote[-1]) and len(stripped) > at + 1:
            opening, inner = stripped[: at + 1], stripped[at + 1 :]
            closing = inner[len(inner.rstrip(quote[-1]).rstrip("\\")) :]  # `""`: one quote each
            return f"{opening}{REDACTED}{closing}{value[len(stripped) :]}"
    return REDACTED + value[len(stripped) :]


def _yaml_pair(match: re.Match[str]) -> str:
    name = _unquoted_name(match["name"])
    if (
        len(match["indent"]) != len(match["lead"])
        or not looks_secret_name(name)
        or not match["value"].strip()
    ):
        return match[0]
    return _value_hidden(match)


def _value_hidden(match: re.Match[str]) -> str:
    """The match with its `value` group hidden, the text around it kept."""
    start, end = match.start("value") - match.start(), match.end("value") - match.start()
    return match[0][:start] + _hidden(match["value"]) + match[0][end:]


def _json_pair(match: re.Match[str]) -> str:
    if not looks_secret_name(match["name"]):
        return match[0]
    return _value_hidden(match)


def _flag_then_value(match: re.Match[str]) -> str:
    if not secret_flag(match["flag"]):
        return match[0]
    group = "value_line" if match["line"] is not None else "value"
    if group == "value" and match["sep"].strip() == "," and not match["open"]:
        return match[0]
    end = len(match[group].rstrip()) if group == "value_line" else len(match[group])
    start = match.start(group) - match.start()
    return match[0][:start] + REDACTED + match[0][start + end :]


LineEditor = Callable[[str, int], str]
"""Rewrites one line of a block, given its indentation (it may keep state from line to line)."""


def _blocks(text: str, header: re.Pattern[str], editor: Callable[[re.Match[str]], LineEditor | None]) -> str:
    """`text` with the lines under each `header` (the lines indented deeper than it, blank ones
    among them) rewritten by the editor `editor` makes for that header; a header it makes none for
    is left as it is."""
    parts: list[str] = []
    at = 0
    for block in header.finditer(text):
        edit = editor(block) if block.start() >= at else None
        if edit is None:
            continue
        parts.append(text[at : block.end()])
        at = block.end()
        depth = len(block["indent"].expandtabs())
        while at < len(text):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end + 1
            line = text[at:end]
            width = len(line) - len(line.lstrip(" \t"))
            if line.strip() and width <= depth:
                break
            parts.append(edit(line, width) if line.strip() else line)
            at = end
    return "".join(parts) + text[at:]


def _hidden_line(line: str, width: int) -> str:
    """A line's content replaced by the mark, its indentation and line break kept."""
    return line[:width] + REDACTED + ("\n" if line.endswith("\n") else "")


def _yaml_data_blocks(text: str) -> str:
    """Each entry of a Secret's `data`/`stringData` block, in YAML that could not be read whole."""
    secret = _data_may_be_secret(text)

    def editor(block: re.Match[str]) -> LineEditor | None:
        if block["key"] == "data" and not secret:
            return None
        child: int | None = None

        def edit(line: str, width: int) -> str:
            nonlocal child
            child = width if child is None else child
            entry = _YAML_DATA_ENTRY.match(line) if width == child else None
            if entry is not None and entry["value"].strip():
                return entry["key"] + _hidden(entry["value"]) + line[entry.end() :]
            return _hidden_line(line, width) if width > child else line

        return edit

    return _blocks(text, _YAML_DATA, editor)


def _json_data_block(match: re.Match[str]) -> str:
    if match["key"] == "data" and not _data_may_be_secret(match.string):
        return match[0]
    body = _JSON_DATA_ENTRY.sub(lambda entry: entry["key"] + _hidden(entry["value"]), match["body"])
    return match[0][: match.start("body") - match.start()] + body + match["end"]


# `kubectl describe`'s environment: each line under `Environment:` is a variable, judged by its name.
_DESCRIBE_ENV = re.compile(r"(?m)^(?P<indent>[ \t]*)Environment:[ \t]*\r?\n")
_DESCRIBE_VARIABLE = re.compile(r"(?P<name>[ \t]*(?P<word>[A-Za-z_][A-Za-z0-9_.-]*):[ \t]+)(?P<value>[^\n]*)")


def _describe_environment(text: str) -> str:
    """Each variable of a describe `Environment:` block whose name looks secret (DB_PASS, STRIPE_KEY),
    every line of its value."""
    if "Environment:" not in text:
        return text

    def editor(block: re.Match[str]) -> LineEditor:
        hiding = False

        def edit(line: str, width: int) -> str:
            nonlocal hiding
            variable = _DESCRIBE_VARIABLE.match(line)
            if variable is not None:
                value = variable["value"].strip()
                hiding = looks_secret_name(variable["word"]) and bool(value) and not is_reference(value)
                return variable["name"] + REDACTED + ("\n" if line.endswith("\n") else "") if hiding else line
            return _hidden_line(line, width) if hiding else line  # the next line of a value of several

        return edit

    return _blocks(text, _DESCRIBE_ENV, editor)


# An env entry as Go prints a map (`kubectl get -o custom-columns=ENV:.spec.containers[*].env`).
_GO_MAP_PAIR = re.compile(r"map\[name:(?P<name>[^\s\]]+) value:(?P<value>[^\]\n]*)\]")


def _go_map_pair(match: re.Match[str]) -> str:
    if not looks_secret_name(match["name"]) or not match["value"]:
        return match[0]
    return f"map[name:{match['name']} value:{REDACTED}]"


def _fragments(text: str) -> str:
    """The secrets of objects in a text that could not be read whole as JSON or YAML (a prefix of
    prose, a result cut short, describe output, a table): by the shapes Kubernetes prints them in."""
    text = _GO_MAP_PAIR.sub(_go_map_pair, text)
    text = _YAML_PAIR.sub(_yaml_pair, text)
    text = _YAML_PAIR_VALUE_FIRST.sub(_yaml_pair, text)
    for pattern in _CUT_BEFORE_ITS_NAME:
        text = pattern.sub(_value_hidden, text)
    for pattern in _JSON_PAIRS:
        text = pattern.sub(_json_pair, text)
    text = _yaml_data_blocks(text)
    return _JSON_DATA.sub(_json_data_block, text)


class Redactor:
    """Replaces secret values by `[REDACTED]`: known values first, then where objects hold secrets
    (shapes/secrets.py), then secret-looking patterns."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # Longest first, so a secret that contains another is removed whole.
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)
        # The same text passes several times (gateway, trace, wire recorder): redact it once.
        self._memo: dict[str, str] = {}

    def add(self, secret: str) -> None:
        """Remember one more value to redact (e.g. a token read from a kubeconfig)."""
        if secret and len(secret) >= 4 and secret not in self._secrets:
            self._secrets.append(secret)
            self._secrets.sort(key=len, reverse=True)
            self._memo.clear()

    def text(self, text: str) -> str:
        """Return `text` with every known secret and secret-looking value replaced."""
        done = self._memo.get(text)
        if done is None:
            done = self._redact(text)
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            self._memo[text] = done
            self._memo[done] = done  # redacting a redacted text changes nothing
        return done

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        if not _might_hold_a_secret(text) and not _cut_short_from_a_secret(text):
            return text
        targets = text_targets(text)
        if targets is None:
            text = _fragments(text)
        elif targets:
            text = self._objects(text, targets)
        text = _describe_environment(text)
        text = _FLAG_THEN_VALUE.sub(_flag_then_value, text)
        text = _key_values(text)
        return _without_private_keys(_well_known(text))

    def _objects(self, text: str, targets: list[Target]) -> str:
        """A JSON or YAML text with each value its objects hold as a secret replaced where it is
        written; JSON inside a string (a last-applied annotation) redacted as a text of its own."""
        parts: list[str] = []
        at = 0
        for target, located in located_targets(targets):
            if located.start < at:
                continue
            raw = text[located.start : located.end]
            if target.action == "nested":
                inner = self.text(located.value)
                if inner == located.value:
                    continue
                written = json.dumps(inner, ensure_ascii=False)
            elif located.style == "'":
                written = f"'{REDACTED}'"
            elif located.host == "json" or located.style == '"':
                written = f'"{REDACTED}"'
            else:  # a plain or block YAML scalar: as the line patterns write it
                written = REDACTED
            if located.style in ("|", ">"):  # a block scalar's span ends with its line breaks
                written += raw[len(raw.rstrip("\r\n")) :]
            parts += [text[at : located.start], written]
            at = located.end
        return "".join(parts) + text[at:]

    def value(self, value: Any) -> Any:
        """Redact every string inside a value: strings, dicts, lists, and pydantic models (copied).
        The secrets its objects hold go first (a Secret's data, an env entry's value), by path."""
        if isinstance(value, dict | list | tuple) and value:
            hidden = {target.path for target in value_targets(value) if target.action == "hide"}
            if hidden:
                value = _without(value, (), hidden)
        return self._strings(value)

    def _strings(self, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            return self.text(value)
        if kind in _SCALARS or isinstance(value, str):  # numbers, None; a StrEnum holds no secret
            return value
        if isinstance(value, BaseModel):
            changed = {}
            for name, item in value.__dict__.items():
                kind = type(item)
                if kind is str:
                    redacted = self.text(item)
                elif kind in _SCALARS or isinstance(item, str):
                    continue
                else:
                    redacted = self.value(item)
                if redacted is not item and redacted != item:
                    changed[name] = redacted
            return value.model_copy(update=changed) if changed else value
        if isinstance(value, dict):
            return {key: self._strings(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self._strings(item) for item in value]
        return value


def _without(value: Any, path: tuple[Any, ...], hidden: set[tuple[Any, ...]]) -> Any:
    """A copy of `value` with the scalar at each hidden path replaced by the mark."""
    if path in hidden:
        return REDACTED
    if isinstance(value, dict):
        return {key: _without(item, (*path, key), hidden) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_without(item, (*path, number), hidden) for number, item in enumerate(value)]
    return value


# Control characters, and the bidi controls that reorder what a reader sees (an RLO, U+202E,
# makes `exe.txt` print as `txt.exe`): none reaches a terminal or a markdown file as it is.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\u2028\u2029]")


def _escaped(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """Text safe to print: control characters (a log line's terminal escapes, say) and bidi controls
    shown as `\\x1b` or `\\u202e`, never sent to the terminal. Newlines and tabs stay."""
    return _CONTROL.sub(lambda match: _escaped(match[0]), text)


_JSON_UNSAFE = re.compile(rf"[\x7f-\x9f{_BIDI}\u2028\u2029]")


def json_printable(text: str) -> str:
    """JSON text (as `json.dumps(..., ensure_ascii=False)` writes it) safe to print: the characters
    it leaves raw that a terminal acts on (C1 controls, bidi controls) written as `\\u202e` escapes,
    so that the JSON holds the same values."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match[0]):04x}", text)


# Line breaks, and the invisible characters that reorder or hide text (bidi overrides, zero widths).
_NOT_ONE_LINE = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def one_line(text: str) -> str:
    """A field that is printed on one line (a name, a status, an explanation), as one line: newlines
    shown as `\\n`, control and invisible characters as `\\x1b` or `\\u202e` (a tab stays), so that
    no field can print a line of its own (a forged `Evidence ... ✓`) or reorder what the reader sees."""
    return _NOT_ONE_LINE.sub(lambda match: _ESCAPES.get(match[0]) or _escaped(match[0]), text)


def public_url(url: str) -> str:
    """The URL without user info or query (credentials never reach messages, traces or errors)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))

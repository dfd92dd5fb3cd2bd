"""Secret redaction, applied before text reaches the model, a trace, a report or the terminal."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

REDACTED = "[REDACTED]"
_SCALARS = frozenset({int, float, bool, type(None)})
MEMO_SIZE = 512

# A key that names a secret: DB_PASSWORD, api-key, client-key-data, token, AWS_SECRET_ACCESS_KEY ...
_SECRET_WORD = (
    r"(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|private[_-]?key|access[_-]?key"
    r"|client[_-]?key(?:[_-]?data)?|credentials?|auth[_-]?token)"
)
_SECRET_KEY = rf"[A-Za-z0-9_.-]*{_SECRET_WORD}[A-Za-z0-9_.-]*"
# The same, as found in text: a whole run of key characters that holds a secret word. It starts
# where a run starts and never backtracks, so that a long `a-a-a-...` costs one pass, not n².
_KEY_IN_TEXT = rf"(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*?{_SECRET_WORD})[A-Za-z0-9_.-]++"

# Keys that contain a secret-looking word but hold no secret (token counts in usage records).
_NOT_SECRET = frozenset({"prompt_tokens", "completion_tokens", "total_tokens", "max_tokens", "tokens"})

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Authorization headers and bearer tokens anywhere in text.
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {REDACTED}"),
    # Well-known token shapes: JWTs, OpenAI-style keys, GitHub and Slack tokens, AWS access keys.
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"), REDACTED),
    (re.compile(r"\b(?:ghp|gho|ghs|xox[abpr])[_-][A-Za-z0-9-]{16,}"), REDACTED),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), REDACTED),
    # The password of a URL with credentials (postgres://app:pw@db/x); the user name stays.
    (
        re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*+://[^\s:/@\"'<>]++):[^\s/@\"'<>]++@"),
        rf"\1:{REDACTED}@",
    ),
)


# A secret-looking KEY with its value, in the three shapes secrets travel in. Prose such as
# "failed to authorize: 401" is left alone: a key must look like a field, not like a sentence.
_NOT_A_VALUE = r"""
    (?!<set\ to\ the\ key)                 # kubectl's reference to a Secret is not a value
    (?!(?:bearer|basic)\s)                  # left to the bearer pattern, which keeps the scheme
"""
# A quoted value up to its closing quote (a backslash escapes one; the other quote is text);
# possessive, so that a quote never closed costs one pass, not an exponential search.
_QUOTED = r"""(?P<quote>["'])(?P<quoted>(?:[^"'\\\n]++|\\.|(?!(?P=quote))["'])*+)(?P=quote)"""
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
    # Shell and log lines anywhere: DB_PASSWORD=value, --api-key=value.
    re.compile(
        rf"(?ix)(?P<key>{_KEY_IN_TEXT})(?P<sep>=){_NOT_A_VALUE}"
        rf"(?:{_QUOTED}|(?P<value>[^\s\"',}}][^\n,}}]*))"
    ),
)

# The last word of a key that names an object, or says something about one, rather than holding a
# secret: `secretName: frontend-api-keys`, `SecretName:` in `kubectl describe`, `--token-file=`,
# `TokenExpirationSeconds:`. The name of a Secret is evidence, never a secret.
_REFERENCE_WORDS = frozenset(
    {
        "name", "names", "ref", "refs", "namespace", "path", "paths", "file", "files", "dir",
        "mount", "volume", "seconds", "ttl", "expiration", "type", "kind", "count", "length",
        "version", "provider",
    }
)  # fmt: skip
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _names_an_object(key: str) -> bool:
    words = _WORDS.findall(key)
    return bool(words) and words[-1].lower() in _REFERENCE_WORDS


_PEM_BEGIN = re.compile(r"-----BEGIN (?P<kind>[A-Z0-9 ]{0,40})PRIVATE KEY-----")
# What is left of a block that was cut before its END line: its base64 lines (also JSON-escaped).
_PEM_BODY = re.compile(r"(?:(?:\r?\n|\\r?\\n)[ \t]*[A-Za-z0-9+/=]+(?=[ \t]*(?:\r?\n|\\[rn]|[\"',]|$)))*")
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
    if key.lower() in _NOT_SECRET or _names_an_object(key):
        return match[0]
    groups = match.groupdict()
    unquoted = groups.get("bare") or groups.get("value")
    if unquoted is not None and match["key"].rstrip().endswith(("'", '"')):
        if unquoted.startswith(("{", "[")):
            return match[0]  # `"Secret": {"name": "db-creds"}`: the fields inside are judged one by one
        inline = groups.get("bare") is not None  # not at the start of a line
        if inline and match["sep"].startswith((" ", "\t")) and not _NUMBER.fullmatch(unquoted):
            return match[0]  # `volume "x-token" : timeout` is a kubelet event; `"password" : 1234` a value
    if match["quote"]:
        if not match["quoted"]:
            return match[0]  # an empty value hides nothing
        return f"{match['key']}{match['sep']}{match['quote']}{REDACTED}{match['quote']}"
    return f"{match['key']}{match['sep']}{REDACTED}"


_NUMBER = re.compile(r"-?\d[\d.eE+-]*")

# Every pattern above needs one of these (in any case) in the text. Most tool results have none,
# and one search for them is far cheaper than running every pattern.
_TRIGGERS = re.compile(
    r"passw|secret|token|key|credential|auth|bearer|basic|eyj|sk-|ghp_|gho_|ghs_|xox|akia|://[^\s/@]+@",
    re.IGNORECASE,
)


_TRIGGER_WORDS = (
    "passw", "secret", "token", "key", "credential", "auth", "bearer", "basic", "eyj", "sk-", "ghp_", "gho_",
    "ghs_", "xox", "akia",
)  # fmt: skip
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


class Redactor:
    """Replaces secret values by `[REDACTED]`: known values first, then secret-looking patterns."""

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
        if not _might_hold_a_secret(text):
            return text
        for shape in _KEY_VALUE_SHAPES:
            text = shape.sub(_redact_key_value, text)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return _without_private_keys(text)

    def value(self, value: Any) -> Any:
        """Redact every string inside a value: strings, dicts, lists, and pydantic models (copied)."""
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
            return {key: self._entry(key, item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value

    def _entry(self, key: Any, item: Any) -> Any:
        if isinstance(key, str) and isinstance(item, str) and item and _looks_secret_key(key):
            return REDACTED
        return self.value(item)


_SECRET_KEY_RE = re.compile(rf"(?i)^{_SECRET_KEY}$")


@functools.lru_cache(maxsize=1024)
def _looks_secret_key(key: str) -> bool:
    return key not in _NOT_SECRET and bool(_SECRET_KEY_RE.match(key)) and not _names_an_object(key)


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

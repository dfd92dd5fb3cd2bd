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
_SECRET_KEY = (
    r"[A-Za-z0-9_.-]*(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|private[_-]?key|access[_-]?key"
    r"|client[_-]?key(?:[_-]?data)?|credentials?|auth[_-]?token)[A-Za-z0-9_.-]*"
)

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
)


# A secret-looking KEY with its value, in the three shapes secrets travel in. Prose such as
# "failed to authorize: 401" is left alone: a key must look like a field, not like a sentence.
_VALUE = r"""
    (?!<set\ to\ the\ key)                 # kubectl's reference to a Secret is not a value
    (?!(?:bearer|basic)\s)                  # left to the bearer pattern, which keeps the scheme
    (?:
        (?P<quote>["'])(?P<quoted>[^"'\n]{3,})["']   # a quoted value, up to its closing quote
      | (?P<value>[^\s"',}][^\n,}]{2,})            # or the rest of the line: over-redact, never leak
    )
"""
_KEY_VALUE_SHAPES = (
    # YAML, `kubectl describe` and env listings: "  DB_PASSWORD:  value" at the start of a line.
    re.compile(rf"(?imx)(?P<key>^[ \t]*(?:-[ \t]+)?{_SECRET_KEY})(?P<sep>[ \t]*:[ \t]*){_VALUE}"),
    # JSON anywhere: "token": "value".
    re.compile(rf"""(?ix)(?P<key>["']{_SECRET_KEY}["'])(?P<sep>\s*:\s*){_VALUE}"""),
    # Shell and log lines anywhere: DB_PASSWORD=value, --api-key=value.
    re.compile(rf"(?ix)(?P<key>\b{_SECRET_KEY})(?P<sep>=){_VALUE}"),
)


def _redact_key_value(match: re.Match[str]) -> str:
    if match["key"].strip(" \t-\"'").lower() in _NOT_SECRET:
        return match[0]
    if match["quote"]:
        return f"{match['key']}{match['sep']}{match['quote']}{REDACTED}{match['quote']}"
    return f"{match['key']}{match['sep']}{REDACTED}"


# Every pattern above needs one of these (in any case) in the text. Most tool results have none,
# and one search for them is far cheaper than running every pattern.
_TRIGGERS = re.compile(
    r"passw|secret|token|key|credential|auth|bearer|basic|eyj|sk-|ghp_|gho_|ghs_|xox|akia", re.IGNORECASE
)


def _might_hold_a_secret(text: str) -> bool:
    return _TRIGGERS.search(text) is not None


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
        return text

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
    return key not in _NOT_SECRET and bool(_SECRET_KEY_RE.match(key))


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Text safe to print: control characters (a log line's terminal escapes, say) shown as `\\x1b`,
    never sent to the terminal. Newlines and tabs stay."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match[0]):02x}", text)


# Line breaks, and the invisible characters that reorder or hide text (bidi overrides, zero widths).
_NOT_ONE_LINE = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def one_line(text: str) -> str:
    """A field that is printed on one line (a name, a status, an explanation), as one line: newlines
    shown as `\\n`, control and invisible characters as `\\x1b` or `\\u202e` (a tab stays), so that
    no field can print a line of its own (a forged `Evidence ... ✓`) or reorder what the reader sees."""

    def escaped(match: re.Match[str]) -> str:
        character = match[0]
        if character in _ESCAPES:
            return _ESCAPES[character]
        code = ord(character)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _NOT_ONE_LINE.sub(escaped, text)

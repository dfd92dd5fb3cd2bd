"""Where a Kubernetes object holds a secret, by what the object is, not by what a key is called.

Kubernetes rarely prints a secret under a key that says so. It prints them as data of an object:

- every value of a Secret's `data` and `stringData` (`connection: cG9zdGdyZXM6Ly8...`,
  `.dockerconfigjson`, `tls.key`): the keys stay, they are evidence;
- an env entry `{name: DB_PASSWORD, value: ...}` (and any name/value pair, such as a probe's HTTP
  header `{name: Authorization, value: ...}`) whose name looks secret;
- a container's args, a secret-looking flag and the item after it (`["--db-password", "..."]`);
- JSON inside a string (`kubectl.kubernetes.io/last-applied-configuration`, which holds a
  Secret's `stringData` in clear): read as objects and redacted the same way;
- a value under a key that looks secret (`password: ...`), even when it is a block scalar.

`value_targets` finds these in a decoded value (structured content); `text_targets` finds them in a
JSON or YAML text (a `---` stream too), with where each one is written, so that the redactor
replaces exactly that span and leaves every other byte of the result as the server printed it.
What names a secret (the words of keys, env names and flags) is decided here too.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

# A key that names a secret: DB_PASSWORD, api-key, client-key-data, token, AWS_SECRET_ACCESS_KEY ...
SECRET_WORD = (
    r"(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|private[_-]?key|access[_-]?key"
    r"|client[_-]?key(?:[_-]?data)?|credentials?|auth[_-]?token)"
)
_SECRET_KEY = re.compile(rf"(?i)^[A-Za-z0-9_.-]*{SECRET_WORD}[A-Za-z0-9_.-]*$")

NOT_SECRET = frozenset({"prompt_tokens", "completion_tokens", "total_tokens", "max_tokens", "tokens"})
"""Keys that contain a secret-looking word but hold no secret (token counts in usage records)."""

# The last word of a key that names an object, or says something about one, rather than holding a
# secret: `secretName: frontend-api-keys`, `SecretName:` in `kubectl describe`, `--token-file=`,
# `TokenExpirationSeconds:`, `--password-stdin` (the value comes from elsewhere). The name of a Secret
# is evidence, never a secret.
_REFERENCE_WORDS = frozenset(
    {
        "name", "names", "ref", "refs", "namespace", "path", "paths", "file", "files", "dir",
        "mount", "volume", "seconds", "ttl", "expiration", "type", "kind", "count", "length",
        "version", "provider", "stdin",
    }
)  # fmt: skip
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")

# Words that say a value is a secret wherever they stand in a key or a name: DB_PASS, MYSQL_PWD,
# SENTRY_DSN, COOKIE_SALT, signing-key, hmacKey (as whole words: `passthrough` and `bypass` are not).
_SECRET_WORDS = frozenset({"pass", "pwd", "passphrase", "dsn", "salt", "hmac", "signing"})
SECRET_WORDS = "|".join(sorted(_SECRET_WORDS, key=len, reverse=True))
"""The same, as a regular expression's alternatives."""
# Words that say it as the last word of an env variable's or a header's name: STRIPE_KEY,
# REDISCLI_AUTH, Authorization (as a key, `key: app` in a selector is not one).
_LAST_NAME_WORDS = frozenset({"key", "auth", "authorization"})
_FIRST_REFERENCE_WORDS = frozenset({"existing"})
"""A key's first word that says it names an object (Helm's `existingSecret: db-creds`)."""


def _words(key: str) -> list[str]:
    return [word.lower() for word in _WORDS.findall(key)]


def names_an_object(key: str) -> bool:
    """Whether a key says it names or describes something (`secretName`, `token-file`, `existingSecret`)."""
    words = _words(key)
    return bool(words) and (words[-1] in _REFERENCE_WORDS or words[0] in _FIRST_REFERENCE_WORDS)


@functools.lru_cache(maxsize=4096)
def looks_secret_key(key: str) -> bool:
    """Whether a field's key says its value is a secret (`password`, `apiToken`, `client-key-data`,
    `signing-key`, `DB_PASS`)."""
    if key in NOT_SECRET or len(key) > 253 or names_an_object(key):
        return False
    return bool(_SECRET_KEY.match(key)) or any(word in _SECRET_WORDS for word in _words(key))


@functools.lru_cache(maxsize=4096)
def looks_secret_name(name: str) -> bool:
    """Whether an env variable's or a header's name says its value is a secret: a secret key's
    words, or a last word KEY or AUTH (STRIPE_KEY, REDISCLI_AUTH, Authorization)."""
    if looks_secret_key(name):
        return True
    words = _words(name)
    return bool(words) and len(name) <= 253 and not names_an_object(name) and words[-1] in _LAST_NAME_WORDS


_FLAG = re.compile(r"--?(?P<name>[A-Za-z][A-Za-z0-9_.-]*)")
_FLAG_SUFFIX = re.compile(r"(?i)(?:pass|passwd|auth)$")
"""A flag that ends so takes a secret (redis's `--requirepass`, `--masterauth`)."""


def secret_flag(item: str) -> bool:
    """Whether a command-line item is a flag whose value follows it and is a secret (`--db-password`,
    `-token`, `--requirepass`); `--token-file` names a file, `--password=x` carries its own value."""
    match = _FLAG.fullmatch(item)
    return match is not None and (
        looks_secret_name(match["name"])
        or (_FLAG_SUFFIX.search(match["name"]) is not None and not names_an_object(match["name"]))
    )


CLIENT_FLAGS: dict[str, tuple[tuple[str, bool], ...]] = {
    "redis-cli": (("-a", False),),
    "sshpass": (("-p", False),),
    "curl": (("-u", True), ("--user", True), ("--proxy-user", True)),
    "wget": (("--password", False), ("--http-password", False)),
}
"""The flags of well-known clients that take a secret although their names do not say so, by
client: the flag, and whether its value is `user:password`."""


def _client_flag(program: str | None, item: str) -> bool | None:
    """Whether `item` is a flag of `program` that takes a secret: None if not, else whether its
    value is `user:password`."""
    if program is None:
        return None
    for flag, pair in CLIENT_FLAGS.get(program.rsplit("/", 1)[-1], ()):
        if item == flag:
            return pair
    return None


# -- what a secret position is ---------------------------------------------------------------------

Action = Literal["hide", "nested"]
"""`hide`: the value is a secret; `nested`: a string that holds JSON, to be redacted as a text."""


@dataclass(frozen=True)
class Located:
    """A scalar of a text: its decoded value and where it is written (quotes and block headers included)."""

    value: str
    start: int
    end: int
    style: str = ""
    """How it is written: `"` or `'` (quoted), `|` or `>` (a YAML block), `` (plain or a JSON number)."""
    host: Literal["json", "yaml"] = "json"


@dataclass(frozen=True)
class Target:
    """One value to redact: where it lies in the decoded value, and in the text when there is one."""

    path: tuple[Any, ...]
    action: Action
    located: Located | None = None


_SECRET_TYPES = re.compile(r"(?i)^(?:opaque|[a-z0-9.-]+\.(?:io|sh|com|org|net|dev)/[a-z0-9.-]+)$")
"""A Secret's `type`: `Opaque`, `kubernetes.io/tls`, `bootstrap.kubernetes.io/token`, `helm.sh/release.v1`."""
_NESTED_MIN = 16
"""A string shorter than this is not read as JSON (no object with a secret in it is that short)."""


def value_targets(value: Any, *, json_text: bool = False) -> list[Target]:
    """The secrets a decoded value holds, by what its objects are (paths into `value`). Of a JSON
    text (`json_text`), a string of several lines is a text of its own too: escaped, the redactor's
    line patterns cannot read it."""
    found: list[Target] = []
    if _bare_data_map(value):
        _hide_all(value, (), found)
        return found
    _walk(value, (), None, found, json_text)
    return found


_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _bare_data_map(value: Any) -> bool:
    """A Secret's `data` printed alone (`kubectl get secret -o jsonpath='{.data}'`): an object of
    nothing but base64 values (8 characters or more), one of which decodes to text."""
    if not isinstance(value, dict) or not value:
        return False
    texts = [_text(item) for item in value.values()]
    if not all(text is not None and len(text) >= 8 and _BASE64.fullmatch(text) for text in texts):
        return False
    return any(_decodes_to_text(text) for text in texts if text is not None)


def _decodes_to_text(text: str) -> bool:
    import base64
    import binascii

    try:
        decoded = base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return decoded.isprintable() or "\n" in decoded


def _scalar(item: Any) -> Any:
    return item.value if isinstance(item, Located) else item


def _text(item: Any) -> str | None:
    if isinstance(item, Located) and item.style in ("null", "bool"):
        return None
    item = _scalar(item)
    return item if isinstance(item, str) else None


def _is_secret_object(value: dict[Any, Any], list_kind: str | None) -> bool:
    kind = _text(value.get("kind"))
    if kind is not None:
        return kind.lower() == "secret"
    if list_kind is not None and list_kind.lower() == "secretlist":
        return True
    kind_of_type = _text(value.get("type"))
    if kind_of_type is not None:
        return _SECRET_TYPES.match(kind_of_type) is not None
    # A document cut before its kind: kubectl sorts `data` before `kind`, so a Secret cut short by a
    # result's size limit shows its data and nothing that says what it is. Its data is not evidence.
    return list_kind is None and "apiVersion" in value and "data" in value


def _walk(
    value: Any, path: tuple[Any, ...], list_kind: str | None, found: list[Target], lines: bool = False
) -> None:
    if isinstance(value, dict):
        secret_object = _is_secret_object(value, list_kind)
        name = _text(value.get("name"))
        entry_secret = "value" in value and (
            looks_secret_name(name)
            if name is not None
            # an env entry with no name: a document cut short between its value and its name
            else len(path) >= 2 and path[-2] == "env"
        )
        kind = _text(value.get("kind"))
        own_list_kind = kind if kind is not None and kind.lower().endswith("list") else None
        for key, item in value.items():
            where = (*path, key)
            lowered = str(key).lower().replace("_", "")
            if lowered == "stringdata" or (lowered == "data" and secret_object):
                _hide_all(item, where, found)
            elif lowered == "value" and entry_secret:
                _hide_all(item, where, found)
            elif isinstance(key, str) and looks_secret_key(key) and not isinstance(item, dict | list):
                if _hideable(item):
                    found.append(_target(where, "hide", item))
            else:
                _walk(item, where, own_list_kind if lowered == "items" else None, found, lines)
    elif isinstance(value, list):
        previous: Any = None
        program = _text(value[0]) if value else None
        for number, item in enumerate(value):
            where = (*path, number)
            text = _text(previous)
            takes = None if text is None else (False if secret_flag(text) else _client_flag(program, text))
            pair = _text(item)
            if (
                takes is not None
                and _hideable(item)
                and not _is_flag(item)
                and (not takes or (pair is not None and ":" in pair))  # `-u user` alone hides nothing
            ):
                found.append(_target(where, "hide", item))
            else:
                _walk(item, where, list_kind, found, lines)
            previous = item
    else:
        text = _text(value)
        if text is not None and len(text) >= _NESTED_MIN:
            if text.lstrip()[:1] in ("{", "[") or (lines and "\n" in text):
                # JSON in a string, or lines a JSON string escapes (a script, a properties file)
                found.append(_target(path, "nested", value))


def _is_flag(item: Any) -> bool:
    text = _text(item)
    return text is not None and text.startswith("-") and _FLAG.fullmatch(text.split("=", 1)[0]) is not None


def _hideable(item: Any) -> bool:
    """A value worth hiding: a non-empty string or a number (never a boolean or null, nor kubectl's
    reference to where a value comes from)."""
    if isinstance(item, Located):
        return item.value != "" and item.style not in ("null", "bool") and not is_reference(item.value)
    if isinstance(item, bool) or item is None:
        return False
    return isinstance(item, int | float) or (isinstance(item, str) and item != "" and not is_reference(item))


def is_reference(value: str) -> bool:
    """kubectl's note of where an env value comes from (`<set to the key 'password' in secret 'db'>`,
    `(v1:metadata.name)`): evidence, never the secret."""
    return value.startswith("<set to the key ") or (value.startswith("(v1:") and value.endswith(")"))


def _hide_all(value: Any, path: tuple[Any, ...], found: list[Target]) -> None:
    """Every scalar inside `value` is a secret (the keys of a mapping stay)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _hide_all(item, (*path, key), found)
    elif isinstance(value, list):
        for number, item in enumerate(value):
            _hide_all(item, (*path, number), found)
    elif _hideable(value):
        found.append(_target(path, "hide", value))


def _target(path: tuple[Any, ...], action: Action, item: Any) -> Target:
    return Target(path, action, item if isinstance(item, Located) else None)


# -- where a text writes them ------------------------------------------------------------------------

MAX_YAML_CHARACTERS = 4_000_000
"""A larger text is not read as YAML (about 1.5 MB a second): the redactor's line patterns alone apply."""
_DOCUMENT_START = re.compile(r"\s*(?:[{\[]|---|[\"']?[A-Za-z0-9_.-]+[\"']?[ \t]*:(?:[ \t]|$))", re.MULTILINE)


def text_targets(text: str) -> list[Target] | None:
    """The secrets a JSON or YAML text holds, each with its span; None when the text is no document
    (prose, a log, a table, describe output that is not YAML): then only line patterns apply."""
    if not _DOCUMENT_START.match(text):
        return None
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            value = json.loads(text)
        except ValueError:
            pass
        else:
            if not value_targets(value, json_text=True):  # the common case, at the C decoder's speed
                return []
            try:
                located, _ = _located_json(text, _skip(text, 0))
            except (ValueError, IndexError):  # pragma: no cover - json.loads read it
                return None
            return value_targets(located, json_text=True)
    return _yaml_targets(text)


def _yaml_targets(text: str) -> list[Target] | None:
    if len(text) > MAX_YAML_CHARACTERS:
        return None
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        nodes = [node for node in yaml.compose_all(text, Loader=loader) if node is not None]
    except (yaml.YAMLError, RecursionError):
        return None
    if not nodes or not all(isinstance(node, yaml.MappingNode | yaml.SequenceNode) for node in nodes):
        return None
    found: list[Target] = []
    for number, node in enumerate(nodes):
        _walk(_located_yaml(node, text), (number,), None, found)
    return found


def _located_yaml(node: Any, text: str) -> Any:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return {
            (str(key.value) if isinstance(key, yaml.ScalarNode) else id(key)): _located_yaml(item, text)
            for key, item in node.value
        }
    if isinstance(node, yaml.SequenceNode):
        return [_located_yaml(item, text) for item in node.value]
    start, end = node.start_mark.index, node.end_mark.index
    style = node.style or ""
    if not style and node.tag in ("tag:yaml.org,2002:null", "tag:yaml.org,2002:bool"):
        style = node.tag.rsplit(":", 1)[1]
    return Located(str(node.value), start, end, style, "yaml")


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009 (untyped in typeshed)


def _skip(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _located_json(text: str, position: int) -> tuple[Any, int]:
    """The JSON value at `position` with each scalar located; and where it ends."""
    opening = text[position]
    if opening == "{":
        value: dict[str, Any] = {}
        position = _skip(text, position + 1)
        while text[position] != "}":
            key, position = _scanstring(text, position + 1)
            position = _skip(text, position)
            if text[position] != ":":
                raise ValueError("expected ':'")
            value[key], position = _located_json(text, _skip(text, position + 1))
            position = _skip(text, position)
            if text[position] == ",":
                position = _skip(text, position + 1)
        return value, position + 1
    if opening == "[":
        items: list[Any] = []
        position = _skip(text, position + 1)
        while text[position] != "]":
            item, position = _located_json(text, position)
            items.append(item)
            position = _skip(text, position)
            if text[position] == ",":
                position = _skip(text, position + 1)
        return items, position + 1
    if opening == '"':
        decoded, end = _scanstring(text, position + 1)
        return Located(decoded, position, end, '"'), end
    for word, style in (("true", "bool"), ("false", "bool"), ("null", "null")):
        if text.startswith(word, position):
            return Located(word, position, position + len(word), style), position + len(word)
    number = _NUMBER.match(text, position)
    if number is None:
        raise ValueError(f"no JSON value at {position}")
    return Located(number[0], position, number.end()), number.end()


def located_targets(targets: list[Target]) -> list[tuple[Target, Located]]:
    """The targets that have a span, in the order they are written."""
    spanned = [(target, target.located) for target in targets if target.located is not None]
    return sorted(spanned, key=lambda pair: pair[1].start)

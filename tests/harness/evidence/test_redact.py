"""Redaction of secret values in text and JSON-like values."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from k8s_agent_harness.evidence import redact
from k8s_agent_harness.evidence.redact import REDACTED, Redactor
from k8s_agent_harness.vocabulary import Pushback


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("      DB_PASSWORD:  hunter22", f"      DB_PASSWORD:  {REDACTED}"),
        ("export API_TOKEN=abc123xyz", f"export API_TOKEN={REDACTED}"),
        ("Authorization: Bearer abcdefghijkl", f"Authorization: Bearer {REDACTED}"),
        ('{"token": "abcdefgh", "user": "bob"}', f'{{"token": "{REDACTED}", "user": "bob"}}'),
        ("client-key-data: LS0tLS1CRUdJTi", f"client-key-data: {REDACTED}"),
        ("key eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmn end", f"key {REDACTED} end"),
        ("use sk-proj-abcdefghijklmnopqrst", f"use {REDACTED}"),
    ],
)
def test_secret_values_are_redacted(text: str, redacted: str) -> None:
    assert Redactor().text(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        "config validation failed: missing required field 'DB_PASSWORD'",
        "DB_PASSWORD:  <set to the key 'password' in secret 'payment-db'>  Optional: false",
        "failed to authorize: 401 Unauthorized",
        "prompt_tokens: 1200",
    ],
)
def test_evidence_that_only_names_a_secret_is_kept(text: str) -> None:
    assert Redactor().text(text) == text


def test_known_values_are_redacted_anywhere_and_dict_keys_decide_too() -> None:
    redactor = Redactor(["s3cr3t-value"])
    redactor.add("tok-from-kubeconfig")

    assert redactor.text("a s3cr3t-value b tok-from-kubeconfig") == f"a {REDACTED} b {REDACTED}"
    assert redactor.value({"password": "x1", "items": ["Bearer zzzzzzzzzz"], "total_tokens": 3}) == {
        "password": REDACTED,
        "items": [f"Bearer {REDACTED}"],
        "total_tokens": 3,
    }


class Call(BaseModel):
    """A model as the trace events are: scalars, an enum, text, and containers, in any order."""

    attempts: int = 1
    outcome: Pushback = Pushback.EVIDENCE
    retried: bool = False
    note: str = ""
    arguments: dict[str, Any] = {}
    lines: list[str] = []
    inner: Call | None = None


def test_a_model_is_copied_with_every_string_redacted_and_left_as_it_is_when_nothing_is() -> None:
    redactor = Redactor(["s3cr3t-value"])
    leaky = Call(
        attempts=2,
        retried=True,
        note="token s3cr3t-value",
        arguments={"password": "hunter2hunter2", "name": "api"},
        lines=["ok", "Bearer s3cr3t-value"],
        inner=Call(note="again s3cr3t-value"),
    )

    out = redactor.value(leaky)

    assert out == Call(
        attempts=2,
        retried=True,
        note=f"token {REDACTED}",
        arguments={"password": REDACTED, "name": "api"},
        lines=["ok", f"Bearer {REDACTED}"],
        inner=Call(note=f"again {REDACTED}"),
    )
    assert leaky.note == "token s3cr3t-value"  # the caller's object is not changed
    clean = Call(attempts=3, note="all fine", lines=["a"], inner=Call())
    assert redactor.value(clean) is clean
    assert redactor.value(Pushback.EVIDENCE) is Pushback.EVIDENCE
    assert redactor.value((1, None, 2.5, "s3cr3t-value")) == [1, None, 2.5, REDACTED]


# -- evidence that names a Secret, a key or a token volume is kept, word for word ---------------------

EVENTS_THAT_NAME_SECRETS = [
    # kubelet
    'MountVolume.SetUp failed for volume "api-credentials" : secret "frontend-api-keys" not found',
    'MountVolume.SetUp failed for volume "secret-volume" : secret "db-password" not found',
    'MountVolume.SetUp failed for volume "bound-sa-token" : failed to fetch token: serviceaccounts "api" not found',
    'MountVolume.SetUp failed for volume "tls-private-key" : timeout expired waiting for volumes to attach',
    'MountVolume.SetUp failed for volume "kube-api-access-x7k2p" : object "default"/"kube-root-ca.crt" not registered',
    'MountVolume.SetUp failed for volume "api-token" : timeout',
    'Error: secret "db-password" not found',
    "Error: couldn't find key STRIPE_API_KEY in Secret payments/stripe",
    'Error: configmap "promo-config" not found',
    '  Warning  FailedMount  3m (x12 over 20m)  kubelet  MountVolume.SetUp failed for volume "api-credentials" : '
    'secret "frontend-api-keys" not found',
    '  Warning  Failed  5s  kubelet  Error: secret "db-password" not found',
    # scheduler and controllers
    '0/3 nodes are available: persistentvolumeclaim "token-store" not found. preemption: 0/3 nodes are available',
    'Error creating: pods "api-7d9c-" is forbidden: error looking up service account prod/api-token-sa: '
    'serviceaccount "api-token-sa" not found',
    # `kubectl describe pod`: volumes and mounts name the Secret they read
    "  api-credentials:\n    Type:        Secret (a volume populated by a Secret)\n"
    "    SecretName:  frontend-api-keys\n    Optional:    false",
    "  kube-api-access-x7k2p:\n    Type:                    Projected\n    TokenExpirationSeconds:  3607",
    "    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-x7k2p (ro)",
    "      STRIPE_API_KEY:  <set to the key 'api-key' in secret 'stripe'>  Optional: false",
    # manifests and flags that refer to a Secret by name
    "      secret:\n        secretName: frontend-api-keys\n        optional: false",
    '{"volumes": [{"name": "api-credentials", "secret": {"secretName": "frontend-api-keys"}}]}',
    "--client-key-file=/etc/kubernetes/pki/apiserver.key --service-account-key-file=/etc/sa.pub",
    # JSON logs, logfmt, Python, Go and Java errors that name a secret but hold none
    '{"level":"error","msg":"Reconciler error","Secret":{"name":"db-creds","namespace":"prod"},'
    '"error":"Secret \\"db-creds\\" not found"}',
    'level=error msg="cannot load credentials" error="secret \\"db-creds\\" not found" volume=api-credentials',
    "KeyError: 'DB_PASSWORD'",
    "E1207 10:00:01 failed to get token: context deadline exceeded",
    'level=error msg="refresh failed" token: expired after 3600s',
    '    password = os.environ["DB_PASSWORD"]',
    'psycopg2.OperationalError: FATAL:  password authentication failed for user "app"',
    "panic: open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory",
    "Caused by: java.lang.IllegalArgumentException: Could not resolve placeholder 'db.password' in value "
    '"${db.password}"',
]


@pytest.mark.parametrize("text", EVENTS_THAT_NAME_SECRETS)
def test_events_and_logs_that_name_a_secret_keep_every_word(text: str) -> None:
    assert Redactor().text(text) == text


def test_names_of_objects_in_json_values_are_kept_too() -> None:
    volume = {"name": "api-credentials", "secret": {"secretName": "frontend-api-keys", "defaultMode": 420}}
    projected = {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}

    assert Redactor().value(volume) == volume
    assert Redactor().value(projected) == projected


# -- ... while the secret values in the same kinds of text still go -----------------------------------

SECRET_TEXTS = [
    ("Authorization: Bearer ya29.a0AfH6SMBxxxxxxxx", "ya29.a0AfH6SMBxxxxxxxx"),
    ('{"headers": {"Authorization": "Bearer abcdefghijklmnop"}}', "abcdefghijklmnop"),
    ("curl -H 'Authorization: Basic dXNlcjpodW50ZXIy' https://x", "dXNlcjpodW50ZXIy"),
    ("connecting with password=hunter2 to db", "hunter2"),
    ('level=error msg="login failed" password="it is hunter2" user=app', "it is hunter2"),
    ("PASSWORD: hunter2", "hunter2"),
    ("  DB_PASSWORD: p,ss word", "p,ss word"),
    ("HOSTNAME=api-7d9c\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY\nHOME=/root", "wJalrXUtnFEMI"),
    ("api_key: sk-proj-abcdefghijklmnopqrst", "sk-proj-abcdefghijklmnopqrst"),
    ('{"api_key": "not-an-sk-shaped-key-123"}', "not-an-sk-shaped-key-123"),
    ('{"password": "it\'s a secret"}', "it's a secret"),
    ('{"password": "a\\"b-c"}', "b-c"),
    ("{'password': b'hunter22'}", "hunter22"),
    ('{"password" : 12345678}', "12345678"),  # Jackson pretty-prints " : "
    ('{"client_secret":"3f9a0c1e","grant_type":"client_credentials"}', "3f9a0c1e"),
    ("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmn", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"),
    (
        "tls.key: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEowIBAAKCAQEAwz\n  Xk9aDfZ3lQ==\n"
        "  -----END RSA PRIVATE KEY-----\n",
        "MIIEowIBAAKCAQEAwz",
    ),
    (
        '{"tls.key": "-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEIDx\\n-----END EC PRIVATE KEY-----\\n"}',
        "MHcCAQEEIDx",
    ),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQ\nBgkqhkiG9w0", "BgkqhkiG9w0"),  # a cut block
    ('{"tls.key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQ\\nBgkqhkiG9w0', "BgkqhkiG9w0"),
    ("DATABASE_URL=postgres://app:hunter2@db.prod:5432/orders", "hunter2"),
    ('{"level":"error","error":"dial redis://default:s3cr3tpw@redis:6379: refused"}', "s3cr3tpw"),
]


@pytest.mark.parametrize(("text", "secret"), SECRET_TEXTS)
def test_secret_values_go_in_every_shape(text: str, secret: str) -> None:
    redacted = Redactor().text(text)

    assert secret not in redacted
    assert REDACTED in redacted


def test_what_surrounds_a_redacted_value_stays() -> None:
    redactor = Redactor()

    assert redactor.text("DATABASE_URL=postgres://app:hunter2@db.prod:5432/orders") == (
        f"DATABASE_URL=postgres://app:{REDACTED}@db.prod:5432/orders"
    )
    assert redactor.text('level=error password="x y" err="secret \\"db\\" not found"') == (
        f'level=error password="{REDACTED}" err="secret \\"db\\" not found"'
    )
    assert redactor.text("-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\nnext line") == (
        f"-----BEGIN PRIVATE KEY-----{REDACTED}-----END PRIVATE KEY-----\nnext line"
    )


def test_a_quoted_name_before_a_colon_in_go_errors_is_kept_and_a_quoted_key_at_line_start_is_not() -> None:
    redactor = Redactor()

    go_error = 'failed to get secret "api-token": secrets "api-token" not found'
    assert redactor.text(go_error) == go_error
    assert redactor.text('  "DB_PASSWORD": correct horse battery') == f'  "DB_PASSWORD": {REDACTED}'
    assert redactor.text('"password" : hunter 2') == f'"password" : {REDACTED}'
    assert redactor.text('  "Secret": {"name": "db-creds", "password": "x1y2z3"}') == (
        f'  "Secret": {{"name": "db-creds", "password": "{REDACTED}"}}'
    )


@pytest.mark.parametrize(
    "text",
    [
        "token " + "a-" * 50_000,  # one long run of key characters
        "token https://" + "a:" * 50_000,  # a URL that never reaches its `@`
        'x "secret": "' + "a" * 100_000,  # a quote that never closes
        "-----BEGIN PRIVATE KEY-----" * 2_000 + "x" * 100_000,  # blocks that never end
    ],
)
def test_hostile_text_is_redacted_in_one_pass_not_a_quadratic_search(text: str) -> None:
    import time

    started = time.monotonic()
    Redactor().text(text)

    assert time.monotonic() - started < 10  # linear: well under a second; quadratic: many minutes


@settings(max_examples=500, deadline=None, database=None, derandomize=True)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "PassWord",
                    "SECRET",
                    "ToKen",
                    "apiKey",
                    "Credential",
                    "AUTH",
                    "Bearer",
                    "Basic",
                    "eyJ",
                    "SK-",
                    "ghp_",
                    "GHO_",
                    "ghs_",
                    "XOX",
                    "AKIA",
                    "https://u:p@h",
                    "http://h/x",
                ]
            ),
            st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=12),
            st.text(max_size=6),  # any Unicode: the path that keeps the regular expression
        ),
        max_size=5,
    ).map(" ".join)
)
def test_the_quick_look_for_secrets_finds_what_the_full_pattern_finds(text: str) -> None:
    # The look decides whether the secret patterns run at all: a miss would let a secret through.
    assert redact._might_hold_a_secret(text) == (redact._TRIGGERS.search(text) is not None)


@pytest.mark.parametrize(
    "text",
    [
        "+ curl -sf -u deploy:Bj9xR4mKz7q https://nexus.example.com/app.tar.gz",
        "POST https://hooks.slack.com/services/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 failed",
        "redis-cli -a Bj9xR4mKz7q ping",
        "sshpass -p Bj9xR4mKz7q ssh ops@bastion",
        "mysql -uroot -pBj9xR4mKz7q shop",
        "wget --http-user=ci --http-password Bj9xR4mKz7q https://x/y",
    ],
)
def test_a_well_known_shape_is_found_in_a_text_that_holds_no_other_sign_of_a_secret(text: str) -> None:
    secret = next(word for word in ("kR8xQ2mZ7wLp3vN9tY5bH1cJ", "Bj9xR4mKz7q") if word in text)
    assert secret not in Redactor().text(text)


def test_the_quick_look_searches_for_every_word_a_shape_or_a_client_s_flag_needs() -> None:
    from k8s_agent_harness.evidence.shapes.secrets import CLIENT_FLAGS

    needed = [word for _, _, words in redact._PATTERNS for word in words if word != "://"]
    assert [word for word in [*needed, *CLIENT_FLAGS] if not redact._might_hold_a_secret(f"x {word} y")] == []
    assert redact._might_hold_a_secret("see https://u:pw@host/x") and not redact._might_hold_a_secret(
        "see https://host/x"
    )


@pytest.mark.parametrize(
    "text, redacted",
    [
        (  # JSON in a log line: the value's quotes stay, so the fragment still parses
            '2024-01-01 INFO loaded {"password": "hunter2-zz", "user": "bob"} from env ok',
            '2024-01-01 INFO loaded {"password": "[REDACTED]", "user": "bob"} from env ok',
        ),
        (  # single-quoted YAML in text that is no YAML document
            "line one\n  password: 'hunter2-zz'\n  next: x\n  - not yaml: [",
            "line one\n  password: '[REDACTED]'\n  next: x\n  - not yaml: [",
        ),
        (  # JSON inside a JSON string: its escaped quotes stay escaped
            'log: payload="{\\"password\\": \\"hunter2-zz\\"}" done',
            'log: payload="{\\"password\\": \\"[REDACTED]\\"}" done',
        ),
        (  # an env entry as Kubernetes prints it, trailing blanks kept after the mark
            'env:\n- name: DB_PASSWORD\n  value: "hunter2-zz"   \n- name: X\n  value: y\n: bad: [',
            'env:\n- name: DB_PASSWORD\n  value: "[REDACTED]"   \n- name: X\n  value: y\n: bad: [',
        ),
        ('config  password = "hunter2-zz"  # trailing\n', 'config  password = "[REDACTED]"  # trailing\n'),
        (  # an unquoted value: the mark takes all of it (no first character kept as a "quote")
            "env:\n- name: API_TOKEN\n  value: hunter2-zz\n: bad: [\n",
            "env:\n- name: API_TOKEN\n  value: [REDACTED]\n: bad: [\n",
        ),
        (  # JSON in a JSON string, compact: the escaped quotes around the mark stay escaped
            'POST /login body="{\\"access_token\\":\\"abc123xyz\\"}" 200\n',
            'POST /login body="{\\"access_token\\":\\"[REDACTED]\\"}" 200\n',
        ),
        (  # a Secret's data in YAML that is no document: each entry's line, its line break kept
            "kind: Secret\ndata:\n  user: Ym9i\n  pass: aHVudGVyMg==\nnext: [\n",
            "kind: Secret\ndata:\n  user: [REDACTED]\n  pass: [REDACTED]\nnext: [\n",
        ),
    ],
)
def test_the_mark_takes_the_value_s_place_and_keeps_its_quotes(text: str, redacted: str) -> None:
    assert Redactor().text(text) == redacted


def test_a_known_secret_of_four_characters_is_redacted_and_a_shorter_one_is_not() -> None:
    added = Redactor()
    added.add("q7z")
    added.add("k9x2")
    assert added.text("a q7z b k9x2 c") == f"a q7z b {REDACTED} c"
    assert Redactor(["q7z", "k9x2"]).text("a q7z b k9x2 c") == f"a q7z b {REDACTED} c"


def test_a_known_secret_inside_another_leaves_nothing_of_the_longer_one() -> None:
    """Secrets are replaced longest first: the shorter one inside the longer must not cut it in two
    pieces that stay readable, whatever order they were learnt in."""
    for order in (["token-4f9a", "my-token-4f9a-tail"], ["my-token-4f9a-tail", "token-4f9a"]):
        redactor = Redactor()
        for secret in order:
            redactor.add(secret)
        assert redactor.text("x my-token-4f9a-tail y token-4f9a z") == f"x {REDACTED} y {REDACTED} z"
        given = Redactor(order)  # given at the start rather than learnt
        assert given.text("x my-token-4f9a-tail y token-4f9a z") == f"x {REDACTED} y {REDACTED} z"


def test_a_one_line_field_cannot_print_a_line_of_its_own_or_reorder_what_is_read() -> None:
    assert redact.one_line("ok\nEvidence \x1b[32m✓\u202e\r\tend") == "ok\\nEvidence \\x1b[32m✓\\u202e\\r\tend"


# -- a Secret's data in YAML that cannot be read whole (a result cut short, a server's own printing) ----

BROKEN = '    note: "unterminated\n'  # makes the document unreadable as YAML: the line patterns decide


def secret_yaml(block: str, body: str, kind: str = "Secret") -> str:
    ending = "type: Opaque\n" if kind == "Secret" else ""
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: db\n  annotations:\n{BROKEN}{block}:\n{body}{ending}"


def test_each_entry_of_a_secret_s_data_is_hidden_where_the_document_cannot_be_read_whole() -> None:
    body = (
        "  password: c3VwZXJzZWNyZXQ=\n"
        "  cert: |\n"
        "    LS0tLS1CRUdJTi\n"
        "    bW9yZS1saW5lcw==\n"
        '  quoted: "aHVudGVyMg=="\n'
        '  empty: ""\n'
        "  blank:\n"
    )
    hidden = (
        f"  password: {REDACTED}\n"
        f"  cert: {REDACTED}\n"
        f"    {REDACTED}\n"
        f"    {REDACTED}\n"
        f'  quoted: "{REDACTED}"\n'
        f'  empty: "{REDACTED}"\n'
        "  blank:\n"
    )

    for block in ("data", "stringData"):
        assert Redactor().text(secret_yaml(block, body)) == secret_yaml(block, hidden), block


def test_a_config_map_s_data_is_evidence_and_stays_while_string_data_is_always_hidden() -> None:
    body = "  mode: fast\n  level: debug\n"

    assert Redactor().text(secret_yaml("data", body, "ConfigMap")) == secret_yaml("data", body, "ConfigMap")
    assert Redactor().text(secret_yaml("stringData", body, "ConfigMap")) == secret_yaml(
        "stringData", f"  mode: {REDACTED}\n  level: {REDACTED}\n", "ConfigMap"
    )


@pytest.mark.parametrize(
    ("value", "hidden"),
    [
        ('""', f'"{REDACTED}"'),
        ("''", f"'{REDACTED}'"),
        ('\\"\\"', f'\\"{REDACTED}\\"'),
        ('"abc"  ', f'"{REDACTED}"  '),
        ('\\"abc\\"', f'\\"{REDACTED}\\"'),
        ("abc", REDACTED),
        ('"', REDACTED),
    ],
)
def test_a_hidden_value_keeps_exactly_its_own_quotes(value: str, hidden: str) -> None:
    assert redact._hidden(value) == hidden


# -- a secret flag's value on a command line, in a list, or on the line after it ----------------------


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("exec /app --db-password hunter2x --port 8080", f"exec /app --db-password {REDACTED} --port 8080"),
        (
            'args: ["--token", "abc123def", "--port", "80"]',
            f'args: ["--token", "{REDACTED}", "--port", "80"]',
        ),
        ("run --password='p4ss w0rd' now", f"run --password='{REDACTED}' now"),
        ('{"args": "--token \\"abc123def\\" --x"}', f'{{"args": "--token \\"{REDACTED}\\" --x"}}'),
        (
            "    Args:\n      --db-password\n      s3cr3tvalue   \n      --port\n      8080\n",
            f"    Args:\n      --db-password\n      {REDACTED}   \n      --port\n      8080\n",
        ),
        (
            "    Args:\n      - --api-key\n      - 'k3yv4lue'\n",
            f"    Args:\n      - --api-key\n      - '{REDACTED}'\n",
        ),
        ("use --token, then restart", "use --token, then restart"),  # a comma in prose: no value follows
        ("--password --verbose", "--password --verbose"),  # the next word is another flag
        (  # the password comes from stdin: what follows is the command's output
            "+ sh -c 'echo s3cr3tvalue | docker login reg.example.com -u ci --password-stdin'\nLogin Succeeded",
            f"+ sh -c 'echo {REDACTED} | docker login reg.example.com -u ci --password-stdin'\nLogin Succeeded",
        ),
    ],
    ids=[
        "space",
        "json-list",
        "quoted",
        "escaped-quotes",
        "next-line",
        "next-list-item",
        "prose",
        "flag-after",
        "from-stdin",
    ],
)
def test_a_secret_flag_s_value_is_hidden_wherever_it_follows(text: str, redacted: str) -> None:
    assert Redactor().text(text) == redacted


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ('    password = os.environ["DB_PASSWORD"]', '    password = os.environ["DB_PASSWORD"]'),  # code
        ('    password = get_secret("db")', '    password = get_secret("db")'),
        (
            "password = hunter2xx\nretry(after=5)",
            f"password = {REDACTED}\nretry(after=5)",
        ),  # code on the next line
        ("db_password = hunter2xx\nnext = 1", f"db_password = {REDACTED}\nnext = 1"),
        ('"Secret": {"name": "db-creds"}', '"Secret": {"name": "db-creds"}'),
        ('volume "app-token" : timeout expired', 'volume "app-token" : timeout expired'),  # a kubelet event
        ('"password" : 12345678', f'"password" : {REDACTED}'),
        ('"password": hunter2xx', f'"password": {REDACTED}'),
        ('password: ""', 'password: ""'),  # nothing to hide
        ("password=''", "password=''"),
        ('{\\"password\\":\\"hunter2xx\\"}', f'{{\\"password\\":\\"{REDACTED}\\"}}'),
        ('api_key="abc123xyz" user=bob', f'api_key="{REDACTED}" user=bob'),
        ("password=hunter2xx, user=bob", f"password={REDACTED}, user=bob"),
        # a log line's `key: value` past its start: one word, ending the line, a message or a
        # mapping's entry, or followed by the next pair
        ('msg="login" password: s3cr3tV4lue', f'msg="login" password: {REDACTED}'),
        ('msg="login password: s3cr3tV4lue" user=bob', f'msg="login password: {REDACTED}" user=bob'),
        ("{user: bob, token: abc123xyz}", f"{{user: bob, token: {REDACTED}}}"),
        ("auth failed token: abc123xyz user: bob", f"auth failed token: {REDACTED} user: bob"),
        ("login failed (password: hunter2xx)", f"login failed (password: {REDACTED})"),
        ('ts=1 db_password: "hunter2xx" done', f'ts=1 db_password: "{REDACTED}" done'),
        ("I1207 10:00:01 api_token: abc123xyz", f"I1207 10:00:01 api_token: {REDACTED}"),
        ("ts=1 password: null", "ts=1 password: null"),  # nothing to hide
        ("ts=1 secret: <none>", "ts=1 secret: <none>"),
        ("level=info secretName: db-creds", "level=info secretName: db-creds"),  # names a Secret
    ],
)
def test_a_secret_key_s_value_is_hidden_and_code_events_and_empty_values_are_not(
    text: str, redacted: str
) -> None:
    assert Redactor().text(text) == redacted


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            '{"kind": "Secret", "data": {"password": "aHVudGVy", "user": "Ym9i"}, "note": "x',
            f'{{"kind": "Secret", "data": {{"password": "{REDACTED}", "user": "{REDACTED}"}}, "note": "x',
        ),
        (
            '{"kind": "ConfigMap", "data": {"mode": "fast"}, "note": "x',
            '{"kind": "ConfigMap", "data": {"mode": "fast"}, "note": "x',
        ),
        (
            '{"kind": "ConfigMap", "stringData": {"mode": "fast"}, "note": "x',
            f'{{"kind": "ConfigMap", "stringData": {{"mode": "{REDACTED}"}}, "note": "x',
        ),
        (
            '{\\"kind\\": \\"Secret\\", \\"data\\": {\\"password\\": \\"aHVudGVy\\"}}',
            f'{{\\"kind\\": \\"Secret\\", \\"data\\": {{\\"password\\": \\"{REDACTED}\\"}}}}',
        ),
        (
            '{"kind": "Secret", "data": {"password": "aHVudGVy"',
            f'{{"kind": "Secret", "data": {{"password": "{REDACTED}"',
        ),
    ],
    ids=["secret-cut-short", "config-map-data", "string-data", "escaped", "cut-inside-the-block"],
)
def test_a_secret_s_data_in_json_that_cannot_be_read_whole_is_hidden_entry_by_entry(
    text: str, redacted: str
) -> None:
    assert Redactor().text(text) == redacted


def test_a_describe_environment_hides_the_values_of_secret_names_only() -> None:
    text = (
        "    Environment:\n"
        "      DB_PASSWORD:   s3cr3tvalue\n"
        "      DB_HOST:       db.svc\n"
        "      API_KEY:       <set to the key 'k' in secret 's'>  Optional: false\n"
        "    Mounts:\n"
        "      /x from y\n"
    )

    assert Redactor().text(text) == text.replace("s3cr3tvalue", REDACTED)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pass@host:8443/path?token=abc#frag", "https://host:8443/path"),
        ("https://host/path", "https://host/path"),
        ("postgres://u:p@db/x", "postgres://db/x"),
        ("not a url", "not a url"),
    ],
)
def test_a_url_is_shown_without_its_credentials_query_or_fragment(url: str, shown: str) -> None:
    assert redact.public_url(url) == shown


def test_a_secret_added_later_is_redacted_from_a_text_already_seen() -> None:
    redactor = Redactor()
    text = "token read: tok-from-kubeconfig"
    assert redactor.text(text) == text  # seen, and remembered as it is

    redactor.add("tok-from-kubeconfig")
    redactor.add("tok-from-kubeconfig")  # twice: nothing changes

    assert redactor.text(text) == f"token read: {REDACTED}"
    redactor.add("tok-from-kubeconfig-and-more")  # longer, holding the first: removed whole
    assert redactor.text("x tok-from-kubeconfig-and-more y") == f"x {REDACTED} y"


def test_every_text_is_redacted_however_many_the_memo_has_seen() -> None:
    redactor = Redactor(["s3cr3t-value"])

    outs = [redactor.text(f"line {n} s3cr3t-value") for n in range(redact.MEMO_SIZE * 2 + 3)]

    assert all(out.endswith(REDACTED) and "s3cr3t" not in out for out in outs)
    assert redactor.text(outs[0]) == outs[0]


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----\nb\n"
            "-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\nc",
            f"a\n-----BEGIN RSA PRIVATE KEY-----{REDACTED}-----END RSA PRIVATE KEY-----\nb\n"
            f"-----BEGIN EC PRIVATE KEY-----{REDACTED}-----END EC PRIVATE KEY-----\nc",
        ),
        (  # an END of another kind does not end it: its body lines go, up to the first that is not one
            "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nnext",
            f"-----BEGIN PRIVATE KEY-----{REDACTED}\n-----END RSA PRIVATE KEY-----\nnext",
        ),
        (
            "x -----BEGIN PRIVATE KEY-----\nAAAA\nBBBB\n\nafter",
            f"x -----BEGIN PRIVATE KEY-----{REDACTED}\n\nafter",
        ),
        (  # a BEGIN inside a block already replaced, then a block after both
            "-----BEGIN PRIVATE KEY-----\nMIIE\n-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
            "b\n-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\nc",
            f"-----BEGIN PRIVATE KEY-----{REDACTED}-----END PRIVATE KEY-----\n"
            f"b\n-----BEGIN EC PRIVATE KEY-----{REDACTED}-----END EC PRIVATE KEY-----\nc",
        ),
    ],
    ids=["two-blocks", "another-kind-s-end", "cut-short", "a-begin-inside-a-block"],
)
def test_each_private_key_block_s_body_is_replaced_its_begin_and_end_kept(text: str, redacted: str) -> None:
    assert Redactor().text(text) == redacted


LOG_LINE = 'W1207 04:12:03.512345       1 reflector.go:539] failed to list *v1.Secret: "timeout"'


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\ndata:\n  ca.crt: TUlJQ2FEQ0NBZG1nQXdJQg==\n  tls.key: TUlJRXZRSUJBREFOQmdrcWhr",
        f"{LOG_LINE}\napiVersion: v1\ndata:\n  ca.crt: TUlJQ2FEQ0NBZG1nQXdJQg==\n  tls.key: TUlJRXZRSUJB",
        '{\n  "apiVersion": "v1",\n  "data": {\n    "tls.key": "TUlJRXZRSUJBREFOQmdrcWhr"\n  },\n  "metadata',
        '{"apiVersion":"v1","data":{"tls.key":"TUlJRXZRSUJBREFOQmdrcWhr"},"metadata":{"name":"tls"',
    ],
    ids=["yaml-cut-before-its-kind", "after-a-log-line", "json-cut-before-its-kind", "compact-json"],
)
def test_a_secret_cut_short_before_its_kind_shows_none_of_its_data(text: str) -> None:
    """kubectl prints `data` before `kind`: a Secret cut by a result's size limit says nothing of what
    it is. A `data` block in a text that names no kind is hidden (a ConfigMap cut so loses its data)."""
    out = Redactor().text(text)

    assert "TUlJ" not in out, out
    assert out.count(REDACTED) == text.count("TUlJ"), out
    assert "tls.key" in out


def test_every_entry_of_a_secret_s_data_in_json_inside_a_string_is_hidden_where_the_text_is_cut() -> None:
    applied = json.dumps({"kind": "Secret", "stringData": {"user": "S1-first", "password": "S2-second"}})
    text = f'{LOG_LINE}\n{{"metadata": {{"annotations": {{"last-applied": {json.dumps(applied)}}}}}, "kind": "Secret"'

    out = Redactor().text(text)

    assert "S1-first" not in out and "S2-second" not in out, out
    assert out == text.replace("S1-first", REDACTED).replace("S2-second", REDACTED)


@pytest.mark.parametrize("value", ['pa"ss', "pa\\ss", 'pa\\"ss', "pass\\"])
def test_a_secret_value_with_quotes_or_backslashes_is_hidden_whole_where_the_text_is_cut(value: str) -> None:
    entry = {"name": "DB_PASSWORD", "value": value}
    data = {"kind": "Secret", "stringData": {"password": value}}
    for written in (json.dumps(entry), json.dumps(data), json.dumps(json.dumps(data))):
        out = Redactor().text(f"{LOG_LINE}\n{written}")

        assert "pa" not in out.split("\n", 1)[1].replace("password", ""), out
        assert "ss" not in out.split("\n", 1)[1].replace("password", ""), out


@pytest.mark.parametrize(
    "text",
    [
        f'{LOG_LINE}\n{{"kind": "ConfigMap", "data": {{"mode": "fast"}}, "note": "token rotation at 04:00',
        f"{LOG_LINE}\nkind: ConfigMap\ndata:\n  mode: fast\n  level: debug\nnote: token rotation at 04:00",
    ],
    ids=["json", "yaml"],
)
def test_a_config_map_s_data_stays_in_a_cut_text_that_mentions_a_secret_word_elsewhere(text: str) -> None:
    assert Redactor().text(text) == text


@pytest.mark.parametrize("quote", ['"', "'"])
def test_an_env_name_in_quotes_is_read_without_them_where_the_text_is_cut(quote: str) -> None:
    def env(name: str, value: str) -> str:
        return f"{LOG_LINE}\n      env:\n      - name: {name}\n        value: {value}\n      - name: NEXT"

    for name in ("TOKEN", "DB_PASSWORD", "x_api_key"):
        quoted = f"{quote}{name}{quote}"
        assert Redactor().text(env(quoted, "Bj9xR4mKz7q")) == env(quoted, REDACTED), name
    for name in (f"{quote}DB_HOST{quote}", "XAUTHX", f"{quote}TOKEN_FILE{quote}"):
        assert Redactor().text(env(name, "/var/run/x")) == env(name, "/var/run/x"), name


def test_the_last_line_of_a_secret_s_cut_text_is_hidden_without_a_line_break_added() -> None:
    text = f"{LOG_LINE}\nkind: Secret\ndata:\n  tls.crt: |\n    TUlJQ2FEQ0NB\n    ZG1nQXdJQg=="
    hidden = f"{LOG_LINE}\nkind: Secret\ndata:\n  tls.crt: {REDACTED}\n    {REDACTED}\n    {REDACTED}"

    assert Redactor().text(text) == hidden


def test_json_in_a_string_with_no_secret_leaves_the_secrets_after_it_to_be_hidden() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: api\n  annotations:\n"
        '    rollout/config: \'{"replicas": 3, "mode": "fast", "région": "eu"}\'\n'
        '    kubectl.kubernetes.io/last-applied-configuration: \'{"kind": "Pod", "note": "déployé", '
        '"env": [{"name": "DB_PASSWORD", "value": "Bj9xR4mKz7q"}]}\'\n'
        "spec:\n  containers:\n  - name: api\n    env:\n    - name: API_TOKEN\n      value: Xk2mN8pQ4rT6\n"
    )

    out = Redactor().text(text)

    assert "Bj9xR4mKz7q" not in out and "Xk2mN8pQ4rT6" not in out, out
    assert 'rollout/config: \'{"replicas": 3, "mode": "fast", "région": "eu"}\'' in out
    assert "déployé" in out and "\\u00e9" not in out  # the annotation rewritten keeps its letters
    assert out.endswith(f"    - name: API_TOKEN\n      value: {REDACTED}\n")


_LINES = st.sampled_from(
    [
        "DB_PASSWORD: hunter22",
        "  api_token=Xk2mN8pQ4rT6 user=bob",
        '{"secret": "s3cr3t", "name": "x"}',
        'level=info msg="login" password: Bj9xR4mKz7q',
        "INFO starting server on :8080",
        "",
        "  nested:",
        "prompt_tokens: 1200",
        "export AUTH_KEY='abc def'",
        "failed to get token: context deadline exceeded",
    ]
)


@settings(max_examples=300)
@given(st.lists(_LINES, min_size=1, max_size=8), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_key_values_are_read_only_on_the_lines_that_name_a_key_and_the_same_as_in_the_whole_text(
    lines: list[str], newline: str, final: bool
) -> None:
    """The key-value shapes run on the runs of lines that hold a key word (a speed-up): the text
    they give is the one they give on the whole text."""
    text = newline.join(lines) + (newline if final else "")

    assert redact._key_values(text) == redact._shapes(text)


def test_a_describe_environment_hides_every_line_of_a_secret_s_value_and_keeps_a_plain_value_s() -> None:
    """The lines after a variable belong to its value: hidden under a secret name, kept under
    another; the last line of the text gets no line break added."""
    text = (
        "    Environment:\n"
        '      CONFIG_JSON:  {"mode": "fast",\n'
        '                     "level": 3}\n'
        "      DB_PASSWORD:  Bj9xR4mKz7q\n"
        "                    second-line-of-it"
    )
    kept = '    Environment:\n      CONFIG_JSON:  {"mode": "fast",\n                     "level": 3}\n'

    out = Redactor().text(text)
    assert out.startswith(kept) and "Bj9xR4mKz7q" not in out and "second-line-of-it" not in out, out
    assert Redactor().text(text.rsplit("\n", 1)[0]) == f"{kept}      DB_PASSWORD:  {REDACTED}"


def test_a_legacy_encrypted_key_cut_before_its_end_loses_its_body_after_its_headers() -> None:
    # RFC 1421 headers, a blank line, then the body: OpenSSL's traditional encrypted key.
    headers = "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n"
    body = "MIIEowIBAAKCAQEAzX1b\nQWERTYUIOPasdfghjkl1\n"
    text = f"a\n-----BEGIN RSA PRIVATE KEY-----\n{headers}{body}\nafter"

    assert Redactor().text(text) == f"a\n-----BEGIN RSA PRIVATE KEY-----{REDACTED}\n\nafter"
    as_json = Redactor().text(
        json.dumps({"tls.key": f"-----BEGIN RSA PRIVATE KEY-----\n{headers}{body}"})[:-2]
    )
    assert "MIIEowIBAAKCAQEAzX1b" not in as_json and "QWERTYUIOPasdfghjkl1" not in as_json
    cut_in_its_headers = f"-----BEGIN RSA PRIVATE KEY-----\n{headers[:40]}"
    assert Redactor().text(cut_in_its_headers) == f"-----BEGIN RSA PRIVATE KEY-----{REDACTED}"


@pytest.mark.parametrize("past", [0, 1])
def test_a_block_s_end_line_is_looked_for_within_its_span_and_no_farther(past: int) -> None:
    begin = "-----BEGIN PRIVATE KEY-----"
    end = "-----END PRIVATE KEY-----"
    cut = f"{begin}\nMIIEvQIBADANBgkq\n\n"
    log = "I1207 10:00:00.000000  1 sync.go:12] synced\n"
    # The second block's END line ends exactly at the span's limit, or one character past it.
    second = f"{begin}\nMIIE\n{end}"
    filler = len(begin) + redact._PEM_SPAN + past - len(cut) - len(second)
    logs = (log * (filler // len(log) + 1))[:filler]
    text = f"{cut}{logs}{second}\nlast"

    out = Redactor().text(text)

    assert "MIIEvQIBADANBgkq" not in out and "\nMIIE\n" not in out
    if past:  # not found: the cut block's own body goes, the logs after it stay
        assert out == f"{begin}{REDACTED}\n\n{logs}{begin}{REDACTED}{end}\nlast"
    else:  # found: everything up to it goes
        assert out == f"{begin}{REDACTED}{end}\nlast"


def test_a_yaml_alias_that_repeats_a_secret_leaves_the_secrets_after_it_hidden_too() -> None:
    # An alias is the anchored node again: two secrets at one span, then more secrets after them.
    secret = (
        "apiVersion: v1\nkind: Secret\ndata:\n  a: &p c2VjcmV0LW9uZQ==\n  b: *p\n  c: c2Vjb25kLXNlY3JldA==\n"
    )
    env = (
        "env:\n- name: DB_PASSWORD\n  value: &p hunter2hunter2\n- name: OTHER_PASSWORD\n  value: *p\n"
        "- name: THIRD_TOKEN\n  value: tok-3333333\n- name: MODE\n  value: fast\n"
    )

    for text, secrets in (
        (secret, ["c2VjcmV0LW9uZQ==", "c2Vjb25kLXNlY3JldA=="]),
        (env, ["hunter2", "tok-3333333"]),
    ):
        out = Redactor().text(text)
        assert not [s for s in secrets if s in out]
        assert out.count(REDACTED) == 2
    assert Redactor().text(env).endswith("- name: MODE\n  value: fast\n")

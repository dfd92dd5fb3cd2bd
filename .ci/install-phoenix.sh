#!/usr/bin/env bash
# Install Arize Phoenix, the OpenTelemetry receiver tests/otel/test_phoenix.py sends runs to, pinned,
# in a venv of its own in a cache directory that survives between runs (it is large: ~650 MB with
# its dependencies, so it stays out of the project's venv).
#
# Usage:  bash .ci/install-phoenix.sh [--require]
#
#         --require   exit 1 when Phoenix is not available afterwards (CI: the test must not
#                     silently skip)
#
# Env:    K8S_AGENT_CACHE        cache root (default: $HOME/.cache/k8s-agent); the venv goes to
#                                $K8S_AGENT_CACHE/phoenix/<version>
#         K8S_PHOENIX_TIMEOUT    seconds allowed for `pip install` (default 600)
#
# Prints one KEY=VALUE line: K8S_AGENT_PHOENIX_BIN, the `phoenix` command (empty when it could not be
# installed). Without --require it never fails: it warns on stderr and exits 0 (the test then skips,
# naming this script). Idempotent; when the pinned version is already there it does no network access.

set -u

REQUIRE=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --require) REQUIRE=1; shift ;;
        -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "install-phoenix: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

VERSION="20.26.1"   # arize-phoenix
CACHE_ROOT="${K8S_AGENT_CACHE:-${HOME:-/root}/.cache/k8s-agent}"
VENV="$CACHE_ROOT/phoenix/$VERSION"
MARKER="$VENV/k8s-agent-phoenix.ok"
TIMEOUT="${K8S_PHOENIX_TIMEOUT:-600}"

warn() { echo "install-phoenix: WARNING: $*" >&2; }
info() { echo "install-phoenix: $*" >&2; }

ready() { [ -f "$MARKER" ] && [ -x "$VENV/bin/phoenix" ]; }

if ! ready; then
    started=$(date +%s)
    info "installing arize-phoenix $VERSION into $VENV"
    rm -rf "$VENV"
    mkdir -p "$(dirname "$VENV")"
    if python3 -m venv "$VENV" \
        && timeout "$TIMEOUT" "$VENV/bin/pip" install -q --disable-pip-version-check "arize-phoenix==$VERSION" \
            >"$VENV.log" 2>&1; then
        touch "$MARKER"
        info "installed in $(( $(date +%s) - started )) s"
    else
        warn "arize-phoenix $VERSION did not install (last lines of $VENV.log follow)"
        tail -n 5 "$VENV.log" >&2 2>/dev/null
    fi
fi

if ready; then
    echo "K8S_AGENT_PHOENIX_BIN=$VENV/bin/phoenix"
    exit 0
fi
echo "K8S_AGENT_PHOENIX_BIN="
[ "$REQUIRE" -eq 1 ] && exit 1
exit 0

#!/usr/bin/env bash
# Install the MCP parts nobody here wrote that the tests of "any MCP server" use, pinned, into a
# cache directory that survives between runs:
#
#   @modelcontextprotocol/server-everything  the protocol's reference server (stdio, Streamable
#                                            HTTP, SSE); run its bin `mcp-server-everything`
#   @modelcontextprotocol/inspector          the MCP Inspector; its CLI (`mcp-inspector --cli`)
#                                            is a real client of the mock cluster
#
# They go to a folder of their own ($DIR/reference), beside the Kubernetes servers of
# install-k8s-mcp-servers.sh, so that neither install changes the other's dependency tree. Both
# are run from the installed bin: no npx, no download at test time.
#
# Usage:  bash .ci/install-mcp-reference-servers.sh [--require]
#
#         --require   exit 1 when either is not available afterwards (CI: the tests must not
#                     silently skip)
#
# Env:    K8S_AGENT_CACHE      cache root (default: $HOME/.cache/k8s-agent); packages go to
#                              $K8S_AGENT_CACHE/npm/reference
#         K8S_MCP_NPM_DIR      the npm folder, overrides $K8S_AGENT_CACHE/npm (as the sibling script)
#         K8S_MCP_NPM_TIMEOUT  seconds allowed for `npm install` (default 300)
#
# Prints KEY=VALUE lines (also written to $DIR/reference/mcp-reference-servers.env):
#   MCP_SERVER_EVERYTHING_BIN, MCP_SERVER_EVERYTHING_VERSION, MCP_INSPECTOR_BIN, MCP_INSPECTOR_VERSION
# A package that could not be installed gets an empty path.
#
# Without --require it never fails: without npm or without the registry it warns on stderr and
# exits 0 (the tests then skip, naming this script). Idempotent; when the pinned versions are
# already present it does no network access at all.

set -u

REQUIRE=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --require) REQUIRE=1; shift ;;
        -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "install-mcp-reference-servers: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

EVERYTHING_VERSION="2026.8.31"   # @modelcontextprotocol/server-everything
INSPECTOR_VERSION="2.12.0"       # @modelcontextprotocol/inspector

CACHE_ROOT="${K8S_AGENT_CACHE:-${HOME:-/root}/.cache/k8s-agent}"
DIR="${K8S_MCP_NPM_DIR:-$CACHE_ROOT/npm}/reference"
NPM_TIMEOUT="${K8S_MCP_NPM_TIMEOUT:-300}"
ENV_FILE="$DIR/mcp-reference-servers.env"

warn() { echo "install-mcp-reference-servers: WARNING: $*" >&2; }
info() { echo "install-mcp-reference-servers: $*" >&2; }

# version of an installed package, read from its package.json (no node needed)
pkg_version() {
    local pj="$DIR/node_modules/$1/package.json"
    [ -f "$pj" ] || return 1
    sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$pj" | head -n 1
}

everything_bin() { echo "$DIR/node_modules/.bin/mcp-server-everything"; }
inspector_bin() { echo "$DIR/node_modules/.bin/mcp-inspector"; }

everything_ok() {
    [ "$(pkg_version @modelcontextprotocol/server-everything)" = "$EVERYTHING_VERSION" ] || return 1
    [ -x "$(everything_bin)" ] || return 1
    # its runtime dependencies must be there too
    [ -f "$DIR/node_modules/@modelcontextprotocol/sdk/package.json" ] || return 1
}

inspector_ok() {
    [ "$(pkg_version @modelcontextprotocol/inspector)" = "$INSPECTOR_VERSION" ] || return 1
    [ -x "$(inspector_bin)" ] || return 1
}

report() {
    local ebin="" ever="" ibin="" iver=""
    if everything_ok; then
        ebin="$(everything_bin)"
        ever="$EVERYTHING_VERSION"
    fi
    if inspector_ok; then
        ibin="$(inspector_bin)"
        iver="$INSPECTOR_VERSION"
    fi
    local out
    out="MCP_SERVER_EVERYTHING_BIN=$ebin
MCP_SERVER_EVERYTHING_VERSION=$ever
MCP_INSPECTOR_BIN=$ibin
MCP_INSPECTOR_VERSION=$iver"
    echo "$out"
    if [ -d "$DIR" ]; then
        printf '%s\n' "$out" >"$ENV_FILE.tmp" 2>/dev/null && mv -f "$ENV_FILE.tmp" "$ENV_FILE" 2>/dev/null
    fi
    [ -n "$ebin" ] || warn "server-everything $EVERYTHING_VERSION is not available (tests needing it will skip)"
    [ -n "$ibin" ] || warn "the MCP Inspector $INSPECTOR_VERSION is not available (tests needing it will skip)"
    if [ -n "$ebin$ibin" ] && ! command -v node >/dev/null 2>&1; then
        warn "node is not on PATH: neither can run"
    fi
    if [ "$REQUIRE" -eq 1 ] && { [ -z "$ebin" ] || [ -z "$ibin" ]; }; then
        echo "install-mcp-reference-servers: ERROR: server-everything and the MCP Inspector are required" >&2
        return 1
    fi
    return 0
}

# --- fast path: everything pinned is already there ---------------------------
if everything_ok && inspector_ok; then
    info "cached in $DIR (server-everything $EVERYTHING_VERSION, inspector $INSPECTOR_VERSION)"
    report
    exit $?
fi

# --- install -------------------------------------------------------------------
if ! command -v npm >/dev/null 2>&1; then
    warn "npm not found; skipping install"
    report
    exit $?
fi
if ! mkdir -p "$DIR" 2>/dev/null; then
    warn "cannot create $DIR; skipping install"
    report
    exit $?
fi

# serialize concurrent runs on the same cache
if command -v flock >/dev/null 2>&1; then
    exec 9>"$DIR/.install.lock" && flock -w "$NPM_TIMEOUT" 9 || warn "could not lock $DIR/.install.lock"
fi

# a minimal package.json keeps npm from walking up to some other project
if [ ! -f "$DIR/package.json" ]; then
    printf '{\n  "name": "k8s-agent-mcp-reference-servers",\n  "private": true\n}\n' >"$DIR/package.json"
fi

timeout_cmd=()
preflight_cmd=()
if command -v timeout >/dev/null 2>&1; then
    timeout_cmd=(timeout --kill-after=10 "$NPM_TIMEOUT")
    preflight_cmd=(timeout --kill-after=5 30)
fi

# Preflight: one metadata request, no retries: an unreachable registry fails here in a second.
if ! "${preflight_cmd[@]}" npm view "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" version \
    --fetch-retries=0 --fetch-timeout=20000 >/dev/null 2>&1; then
    warn "npm registry unreachable (npm view @modelcontextprotocol/server-everything@$EVERYTHING_VERSION failed); skipping install"
    report
    exit $?
fi

info "installing @modelcontextprotocol/server-everything@$EVERYTHING_VERSION @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $DIR"
start=$(date +%s)
log="$DIR/npm-install.log"
# --ignore-scripts: neither needs an install script (both ship built JavaScript).
if "${timeout_cmd[@]}" npm install --prefix "$DIR" \
    --save-exact --no-audit --no-fund --no-progress --ignore-scripts \
    --fetch-retries=2 --fetch-timeout=60000 \
    --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000 \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" \
    >"$log" 2>&1; then
    info "npm install took $(($(date +%s) - start))s"
else
    rc=$?
    warn "npm install failed (exit $rc after $(($(date +%s) - start))s); last lines of $log:"
    tail -n 15 "$log" >&2 2>/dev/null
fi

report
exit $?

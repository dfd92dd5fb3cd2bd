#!/usr/bin/env bash
# Install the MCP parts nobody here wrote that the tests of "any MCP server" use, pinned, into a
# cache directory that survives between runs:
#
#   @modelcontextprotocol/server-everything  the protocol's reference server (stdio, Streamable
#                                            HTTP, SSE); run its bin `mcp-server-everything`
#   @modelcontextprotocol/inspector          the MCP Inspector; its CLI (`mcp-inspector --cli`)
#                                            is a real client of the mock cluster
#   @modelcontextprotocol/server (+ /node,   the TypeScript SDK v2, in a folder of its own
#   zod)                                     ($DIR/ts-sdk): tests/integration/modern_server.mjs
#                                            builds a server on it that speaks only the 2026
#                                            protocol
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
#   MCP_SERVER_EVERYTHING_BIN, MCP_SERVER_EVERYTHING_VERSION, MCP_INSPECTOR_BIN, MCP_INSPECTOR_VERSION,
#   MCP_TS_SDK_MODULES (the TypeScript SDK's node_modules folder), MCP_TS_SDK_VERSION
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
TS_SDK_VERSION="2.4.0"           # @modelcontextprotocol/server (the TypeScript SDK v2)
TS_NODE_VERSION="2.1.2"          # @modelcontextprotocol/node (its Node.js HTTP adapter)
ZOD_VERSION="4.6.7"              # zod (the SDK's schemas)

CACHE_ROOT="${K8S_AGENT_CACHE:-${HOME:-/root}/.cache/k8s-agent}"
DIR="${K8S_MCP_NPM_DIR:-$CACHE_ROOT/npm}/reference"
NPM_TIMEOUT="${K8S_MCP_NPM_TIMEOUT:-300}"
ENV_FILE="$DIR/mcp-reference-servers.env"
TS_DIR="$(dirname "$DIR")/ts-sdk"

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

ts_sdk_ok() {
    [ "$(DIR="$TS_DIR" pkg_version @modelcontextprotocol/server)" = "$TS_SDK_VERSION" ] || return 1
    [ "$(DIR="$TS_DIR" pkg_version @modelcontextprotocol/node)" = "$TS_NODE_VERSION" ] || return 1
    [ "$(DIR="$TS_DIR" pkg_version zod)" = "$ZOD_VERSION" ] || return 1
}

report() {
    local ebin="" ever="" ibin="" iver="" tsdir="" tsver=""
    if everything_ok; then
        ebin="$(everything_bin)"
        ever="$EVERYTHING_VERSION"
    fi
    if inspector_ok; then
        ibin="$(inspector_bin)"
        iver="$INSPECTOR_VERSION"
    fi
    if ts_sdk_ok; then
        tsdir="$TS_DIR/node_modules"
        tsver="$TS_SDK_VERSION"
    fi
    local out
    out="MCP_SERVER_EVERYTHING_BIN=$ebin
MCP_SERVER_EVERYTHING_VERSION=$ever
MCP_INSPECTOR_BIN=$ibin
MCP_INSPECTOR_VERSION=$iver
MCP_TS_SDK_MODULES=$tsdir
MCP_TS_SDK_VERSION=$tsver"
    echo "$out"
    if [ -d "$DIR" ]; then
        printf '%s\n' "$out" >"$ENV_FILE.tmp" 2>/dev/null && mv -f "$ENV_FILE.tmp" "$ENV_FILE" 2>/dev/null
    fi
    [ -n "$ebin" ] || warn "server-everything $EVERYTHING_VERSION is not available (tests needing it will skip)"
    [ -n "$ibin" ] || warn "the MCP Inspector $INSPECTOR_VERSION is not available (tests needing it will skip)"
    [ -n "$tsdir" ] || warn "the TypeScript SDK $TS_SDK_VERSION is not available (tests needing it will skip)"
    if [ -n "$ebin$ibin" ] && ! command -v node >/dev/null 2>&1; then
        warn "node is not on PATH: neither can run"
    fi
    if [ "$REQUIRE" -eq 1 ] && { [ -z "$ebin" ] || [ -z "$ibin" ] || [ -z "$tsdir" ]; }; then
        echo "install-mcp-reference-servers: ERROR: server-everything, the MCP Inspector and the TypeScript SDK are required" >&2
        return 1
    fi
    return 0
}

# --- fast path: everything pinned is already there ---------------------------
if everything_ok && inspector_ok && ts_sdk_ok; then
    info "cached in $DIR (server-everything $EVERYTHING_VERSION, inspector $INSPECTOR_VERSION, TypeScript SDK $TS_SDK_VERSION)"
    report
    exit $?
fi

# --- install -------------------------------------------------------------------
if ! command -v npm >/dev/null 2>&1; then
    warn "npm not found; skipping install"
    report
    exit $?
fi
if ! mkdir -p "$DIR" "$TS_DIR" 2>/dev/null; then
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
if [ ! -f "$TS_DIR/package.json" ]; then
    printf '{\n  "name": "k8s-agent-mcp-ts-sdk",\n  "private": true\n}\n' >"$TS_DIR/package.json"
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

# npm_install FOLDER PACKAGE...: one pinned install into FOLDER, its log beside it.
# --ignore-scripts: none of them needs an install script (all ship built JavaScript).
npm_install() {
    local folder="$1" start rc log
    shift
    log="$folder/npm-install.log"
    info "installing $* into $folder"
    start=$(date +%s)
    if "${timeout_cmd[@]}" npm install --prefix "$folder" \
        --save-exact --no-audit --no-fund --no-progress --ignore-scripts \
        --fetch-retries=2 --fetch-timeout=60000 \
        --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000 \
        "$@" >"$log" 2>&1; then
        info "npm install took $(($(date +%s) - start))s"
    else
        rc=$?
        warn "npm install failed (exit $rc after $(($(date +%s) - start))s); last lines of $log:"
        tail -n 15 "$log" >&2 2>/dev/null
    fi
}

if ! { everything_ok && inspector_ok; }; then
    npm_install "$DIR" "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
        "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi
if ! ts_sdk_ok; then
    npm_install "$TS_DIR" "@modelcontextprotocol/server@$TS_SDK_VERSION" \
        "@modelcontextprotocol/node@$TS_NODE_VERSION" "zod@$ZOD_VERSION"
fi

report
exit $?

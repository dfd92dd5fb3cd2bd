#!/usr/bin/env bash
# Install the two real Kubernetes MCP servers used by the integration tests,
# pinned, into a cache directory that survives between runs:
#
#   kubernetes-mcp-server  (containers/kubernetes-mcp-server, a Go binary shipped
#                           in a platform npm package; run the binary directly)
#   mcp-server-kubernetes  (Flux159, Node.js; run `node dist/index.js`; it shells
#                           out to `kubectl` found on PATH)
#
# Usage:  bash .ci/install-k8s-mcp-servers.sh [--require SERVER]...
#
#         --require kubernetes-mcp-server|mcp-server-kubernetes
#                           exit 1 when that server is not available afterwards
#                           (CI: the integration tests must not silently skip)
#
# Env:    K8S_AGENT_CACHE   cache root (default: $HOME/.cache/k8s-agent);
#                           packages go to $K8S_AGENT_CACHE/npm
#         K8S_MCP_NPM_DIR   install dir, overrides the above
#         K8S_MCP_NPM_TIMEOUT  seconds allowed for `npm install` (default 300)
#
# Prints KEY=VALUE lines (also written to $DIR/k8s-mcp-servers.env):
#   KUBERNETES_MCP_SERVER_BIN, KUBERNETES_MCP_SERVER_VERSION,
#   MCP_SERVER_KUBERNETES_JS,  MCP_SERVER_KUBERNETES_VERSION
# A server that could not be installed gets an empty path.
#
# Without --require it never fails: without npm or without the registry it
# warns on stderr and exits 0 (the integration tests then skip). Idempotent;
# when the pinned versions are already present it does no network access at all.

set -u

REQUIRED=()
while [ "$#" -gt 0 ]; do
    case "$1" in
        --require)
            case "${2:-}" in
                kubernetes-mcp-server | mcp-server-kubernetes) REQUIRED+=("$2") ;;
                *) echo "install-k8s-mcp-servers: --require takes kubernetes-mcp-server or mcp-server-kubernetes" >&2; exit 2 ;;
            esac
            shift 2
            ;;
        -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
        *) echo "install-k8s-mcp-servers: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

KMS_VERSION="0.0.67"   # kubernetes-mcp-server
MSK_VERSION="4.1.7"    # mcp-server-kubernetes

CACHE_ROOT="${K8S_AGENT_CACHE:-${HOME:-/root}/.cache/k8s-agent}"
DIR="${K8S_MCP_NPM_DIR:-$CACHE_ROOT/npm}"
NPM_TIMEOUT="${K8S_MCP_NPM_TIMEOUT:-300}"
ENV_FILE="$DIR/k8s-mcp-servers.env"

warn() { echo "install-k8s-mcp-servers: WARNING: $*" >&2; }
info() { echo "install-k8s-mcp-servers: $*" >&2; }

# --- platform package of kubernetes-mcp-server -----------------------------
case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) os="" ;;
esac
case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch="" ;;
esac
KMS_PLATFORM_PKG=""
if [ -n "$os" ] && [ -n "$arch" ]; then
    KMS_PLATFORM_PKG="kubernetes-mcp-server-$os-$arch"
fi

kms_bin() { echo "$DIR/node_modules/$KMS_PLATFORM_PKG/bin/$KMS_PLATFORM_PKG"; }
msk_js() { echo "$DIR/node_modules/mcp-server-kubernetes/dist/index.js"; }

# version of an installed package, read from its package.json (no node needed)
pkg_version() {
    local pj="$DIR/node_modules/$1/package.json"
    [ -f "$pj" ] || return 1
    sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$pj" | head -n 1
}

kms_ok() {
    [ -n "$KMS_PLATFORM_PKG" ] || return 1
    [ "$(pkg_version kubernetes-mcp-server)" = "$KMS_VERSION" ] || return 1
    [ "$(pkg_version "$KMS_PLATFORM_PKG")" = "$KMS_VERSION" ] || return 1
    local bin
    bin="$(kms_bin)"
    [ -x "$bin" ] || return 1
    # the binary must really run on this machine
    [ "$("$bin" --version 2>/dev/null)" = "v$KMS_VERSION" ]
}

msk_ok() {
    [ "$(pkg_version mcp-server-kubernetes)" = "$MSK_VERSION" ] || return 1
    [ -f "$(msk_js)" ] || return 1
    # its runtime dependencies must be there too
    [ -f "$DIR/node_modules/@modelcontextprotocol/sdk/package.json" ] || return 1
    [ -f "$DIR/node_modules/@kubernetes/client-node/package.json" ] || return 1
}

report() {
    local kbin="" kver="" mjs="" mver=""
    if kms_ok; then
        kbin="$(kms_bin)"
        kver="$KMS_VERSION"
    fi
    if msk_ok; then
        mjs="$(msk_js)"
        mver="$MSK_VERSION"
    fi
    local out
    out="KUBERNETES_MCP_SERVER_BIN=$kbin
KUBERNETES_MCP_SERVER_VERSION=$kver
MCP_SERVER_KUBERNETES_JS=$mjs
MCP_SERVER_KUBERNETES_VERSION=$mver"
    echo "$out"
    if [ -d "$DIR" ]; then
        printf '%s\n' "$out" >"$ENV_FILE.tmp" 2>/dev/null && mv -f "$ENV_FILE.tmp" "$ENV_FILE" 2>/dev/null
    fi
    [ -n "$kbin" ] || warn "kubernetes-mcp-server $KMS_VERSION is not available (tests needing it will skip)"
    [ -n "$mjs" ] || warn "mcp-server-kubernetes $MSK_VERSION is not available (tests needing it will skip)"
    if [ -n "$mjs" ]; then
        command -v node >/dev/null 2>&1 || warn "node is not on PATH: mcp-server-kubernetes cannot run"
        command -v kubectl >/dev/null 2>&1 || warn "kubectl is not on PATH: mcp-server-kubernetes shells out to it"
    fi
    local required missing=0
    for required in ${REQUIRED[@]+"${REQUIRED[@]}"}; do
        case "$required" in
            kubernetes-mcp-server) [ -n "$kbin" ] || missing=1 ;;
            mcp-server-kubernetes) [ -n "$mjs" ] || missing=1 ;;
        esac
        [ "$missing" -eq 0 ] || { echo "install-k8s-mcp-servers: ERROR: $required is required and not available" >&2; return 1; }
    done
    return 0
}

if [ -z "$KMS_PLATFORM_PKG" ]; then
    warn "no kubernetes-mcp-server package for $(uname -s)/$(uname -m)"
fi

# --- fast path: everything pinned is already there ---------------------------
if { [ -z "$KMS_PLATFORM_PKG" ] || kms_ok; } && msk_ok; then
    info "cached in $DIR (kubernetes-mcp-server $KMS_VERSION, mcp-server-kubernetes $MSK_VERSION)"
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
    printf '{\n  "name": "k8s-agent-mcp-servers",\n  "private": true\n}\n' >"$DIR/package.json"
fi

timeout_cmd=()
preflight_cmd=()
if command -v timeout >/dev/null 2>&1; then
    timeout_cmd=(timeout --kill-after=10 "$NPM_TIMEOUT")
    preflight_cmd=(timeout --kill-after=5 30)
fi

# Preflight: one metadata request, no retries. An unreachable registry fails
# here in about a second instead of after minutes of npm's install retries.
if ! "${preflight_cmd[@]}" npm view "kubernetes-mcp-server@$KMS_VERSION" version \
    --fetch-retries=0 --fetch-timeout=20000 >/dev/null 2>&1; then
    warn "npm registry unreachable (npm view kubernetes-mcp-server@$KMS_VERSION failed); skipping install"
    report
    exit $?
fi

info "installing kubernetes-mcp-server@$KMS_VERSION mcp-server-kubernetes@$MSK_VERSION into $DIR"
start=$(date +%s)
log="$DIR/npm-install.log"
# --ignore-scripts: neither server needs an install script (the Go binary is
# shipped inside the platform package, an optional dependency: keep those).
if "${timeout_cmd[@]}" npm install --prefix "$DIR" \
    --save-exact --no-audit --no-fund --no-progress --ignore-scripts \
    --include=optional --fetch-retries=2 --fetch-timeout=60000 \
    --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000 \
    "kubernetes-mcp-server@$KMS_VERSION" "mcp-server-kubernetes@$MSK_VERSION" \
    >"$log" 2>&1; then
    info "npm install took $(($(date +%s) - start))s"
else
    rc=$?
    warn "npm install failed (exit $rc after $(($(date +%s) - start))s); last lines of $log:"
    tail -n 15 "$log" >&2 2>/dev/null
fi

report
exit $?

#!/usr/bin/env bash
# Write constraints.txt: every distribution a fresh install of the project with all its extras
# resolves to today, pinned, so that an install can be repeated exactly:
#
#   pip install -c constraints.txt -e '.[test,lint,charts,otel]'
#
# Usage: bash .ci/lock.sh   (a fresh venv in a temporary folder; the checkout's constraints.txt rewritten)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-compile -e '.[test,lint,charts,otel,release,mutation]' 2>&1 | grep -v '^WARNING: Location' || true
{
    echo "# Every distribution a fresh install of k8s-agent with all its extras resolved to on $(date -u +%Y-%m-%d)"
    echo "# (Python $(python3 -c 'import platform; print(platform.python_version())')), pinned: \`pip install -c constraints.txt -e '.[test,lint,charts,otel]'\`"
    echo "# repeats that install exactly. Written by \`bash .ci/lock.sh\`; the dependency ranges themselves are"
    echo "# pyproject.toml's, and an install without this file takes the newest releases they allow."
    "$work/venv/bin/pip" freeze --exclude-editable --all | grep -v -E '^(pip|setuptools|wheel)==' | LC_ALL=C sort -f
} >constraints.txt
echo "lock: constraints.txt has $(grep -c '==' constraints.txt) pins" >&2

#!/usr/bin/env bash
# The release a user installs, checked as a packager would: build the sdist and, from it, the wheel
# (python -m build), install the wheel (not -e) with its test extra into a fresh venv, `pip check`,
# then run `k8s-agent ask` with both agents, `k8s-agent probe` and `eval` on one incident of each
# shipped corpus (the package data), and the tests of what a wheel can break (the contract suite, the
# mock cluster's files, the servers) from that install, in a folder that holds the tests
# and not the source, so that every import comes from the wheel. The whole suite runs on the
# editable install (.ci/run); these are the tests whose outcome depends on what the wheel holds.
#
# Usage: bash .ci/check-wheel.sh [PYTHON]   (PYTHON: an interpreter with `build`; default .venv/bin/python)
set -uo pipefail
cd "$(dirname "$0")/.."
python=${1:-.venv/bin/python}
fail() { echo "check-wheel: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; fail "the build failed"; }
wheel=$(ls "$work"/dist/*.whl) && ls "$work"/dist/*.tar.gz >/dev/null || fail "no wheel and sdist in $work/dist"
echo "check-wheel: built $(basename "$wheel") and $(basename "$(ls "$work"/dist/*.tar.gz)")" >&2

python3 -m venv "$work/venv" || fail "cannot create a venv"
"$work/venv/bin/pip" install -q --no-compile "$wheel[test]" >"$work/install.log" 2>&1 \
    || { grep -v '^WARNING: Location' "$work/install.log" | tail -20 >&2; fail "the wheel did not install"; }
"$work/venv/bin/pip" check >&2 || fail "pip check found broken requirements"

mkdir -p "$work/run" && cp -r tests "$work/run/tests" && cp pyproject.toml "$work/run/"  # the tests and their settings, no source
cd "$work/run" || fail "no run folder"
for impl in handwritten sdk; do
    "$work/venv/bin/k8s-agent" ask "Which pods in the production namespace are unhealthy, and why?" \
        --impl "$impl" --trace-dir "$work/traces" >"$work/ask.out" 2>"$work/ask.err" \
        || { tail -5 "$work/ask.err" >&2; fail "k8s-agent ask --impl $impl from the wheel failed"; }
    grep -q "^Verification: " "$work/ask.out" || fail "k8s-agent ask --impl $impl printed no report"
done
"$work/venv/bin/k8s-agent" probe >"$work/probe.out" 2>&1 || { tail -5 "$work/probe.out" >&2; fail "k8s-agent probe from the wheel failed"; }
for corpus in corpus holdout holdout2; do
    incident=$("$work/venv/bin/python" -c "import k8s_agent.eval, pathlib; print(sorted((pathlib.Path(k8s_agent.eval.__file__).parent / '$corpus').glob('*.yaml'))[0].stem)")
    "$work/venv/bin/k8s-agent" eval --corpus "$("$work/venv/bin/python" -c "import k8s_agent.eval, pathlib; print(pathlib.Path(k8s_agent.eval.__file__).parent / '$corpus')")" \
        --incident "$incident" --impl handwritten --model offline --no-baselines --results "$work/eval-$corpus.jsonl" >"$work/eval.out" 2>&1 \
        || { tail -5 "$work/eval.out" >&2; fail "k8s-agent eval on the shipped $corpus from the wheel failed"; }
done
echo "check-wheel: k8s-agent ask (both agents), probe and eval ran from the wheel; the tests:" >&2
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider tests/contract/test_contract.py \
    tests/unit/test_mock_cluster_files.py tests/harness/cluster/test_servers.py
status=$?
[ "$status" -eq 5 ] && fail "pytest collected no tests"
[ "$status" -eq 0 ] || fail "the quick tests failed against the installed wheel (exit $status)"
echo "check-wheel: ok" >&2

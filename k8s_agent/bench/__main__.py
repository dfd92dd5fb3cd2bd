"""`python -m k8s_agent.bench [--quick] [--json]` is `k8s-agent bench`."""

import argparse
import sys

from k8s_agent.bench.run import main

parser = argparse.ArgumentParser(
    prog="python -m k8s_agent.bench", allow_abbrev=False, description="k8s-agent benchmarks"
)
parser.add_argument("--quick", action="store_true")
parser.add_argument("--json", action="store_true")
args = parser.parse_args()
sys.exit(main(quick=args.quick, as_json=args.json))

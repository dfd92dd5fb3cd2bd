"""`python -m k8s_agent` is `k8s-agent` (the console script runs `run` too)."""

import sys


def run() -> None:
    """The command line, with Ctrl-C at any moment, from the first import on, one line and exit 130
    (`main` says the same for a Ctrl-C once it runs; this covers the moments before it)."""
    try:
        from k8s_agent.cli import main

        code = main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    run()

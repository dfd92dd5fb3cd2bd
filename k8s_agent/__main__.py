"""`python -m k8s_agent` is `k8s-agent` (the console script runs `run` too)."""

import sys


def run() -> None:
    """The command line, with Ctrl-C at any moment, from the first import on, one line and exit 130
    (`main` says the same for a Ctrl-C once it runs; this covers the moments before it); SIGTERM and
    SIGHUP the same way, with 143 and 129 (k8s_agent_harness/interrupts.py)."""
    from k8s_agent_harness import interrupts

    with interrupts.forwarded():
        try:
            from k8s_agent.cli import main

            code = main()
        except KeyboardInterrupt:
            interrupts.handled()
            print(interrupts.reason(), file=sys.stderr)
            code = interrupts.exit_code()
    sys.exit(code)


if __name__ == "__main__":
    run()

"""`python -m k8s_agent` is `k8s-agent`."""

import sys

try:
    from k8s_agent.cli import main
except KeyboardInterrupt:  # Ctrl-C before the command line could even be read
    print("interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())

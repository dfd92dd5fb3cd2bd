"""`python -m k8s_agent` is `k8s-agent`."""

import sys

from k8s_agent.cli import main

sys.exit(main())

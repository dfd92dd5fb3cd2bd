"""`python -m poc`: the probe command without the rest of the CLI (what --versions runs in each venv)."""

import sys

from poc.cli import main

sys.exit(main())

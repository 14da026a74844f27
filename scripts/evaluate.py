"""Run ``bm-eval`` from a checkout without installing: ``python scripts/evaluate.py --agents ...``."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bm_env.cli.evaluate import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

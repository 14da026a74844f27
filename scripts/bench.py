"""Time the engine, OpenSpiel's hearts, the environment and the vector engine; the same as ``bm-bench``."""

import sys

from bm_env.cli.bench import main

if __name__ == "__main__":
    sys.exit(main())

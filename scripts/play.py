"""Play Black Maria (or any Hearts-family preset) at the terminal; the same as the ``bm-play`` command."""

import sys

from bm_env.cli.play import main

if __name__ == "__main__":
    sys.exit(main())

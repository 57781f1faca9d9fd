"""``python -m datamove``: the same as the ``datamove`` command."""

import sys

from datamove.cli import main

if __name__ == "__main__":
    sys.exit(main())

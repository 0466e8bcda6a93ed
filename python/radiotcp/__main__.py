"""``python -m radiotcp`` = the ``radiotcp`` command."""

import sys

from .cli import main

sys.exit(main())

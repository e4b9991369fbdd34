"""`python -m sussurro ...` is the `sussurro` command."""

import sys

from sussurro.cli import main

sys.exit(main())

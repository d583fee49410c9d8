"""`python -m companion ...`: see companion.cli."""

from .cli import main

raise SystemExit(main())

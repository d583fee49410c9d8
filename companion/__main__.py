"""`python -m companion ...`: see companion.cli."""

from companion.ops.cli import main

raise SystemExit(main())

"""What the tests share: where the repository and the test data are, and the pinned games."""

import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
GOLDEN = [json.loads(line) for line in (DATA / "golden.jsonl").read_text().splitlines()]
# Version-2 games depend on the server's key: these are pinned for this test key.
GOLDEN_V2_KEY = b"golden test key"
GOLDEN_V2 = [json.loads(line) for line in (DATA / "golden-v2.jsonl").read_text().splitlines()]

# How many random games and examples the property tests play. Every run plays enough to reach each rule and ending
# (the tests assert they were reached); COMPANION_THOROUGH=1, before a release or after an engine changes, plays
# about ten times as many (docs/testing.md).
THOROUGH = os.environ.get("COMPANION_THOROUGH") == "1"


def how_many(usual: int, thorough: int) -> int:
    """`usual` random games or examples in an ordinary run, `thorough` when COMPANION_THOROUGH=1."""
    return thorough if THOROUGH else usual


def make_app(database_url: str, instance: Path):
    """The site on `database_url`, its secret key and files in `instance`."""
    import os

    from companion.web.core.app import create_app

    os.environ["COMPANION_INSTANCE_PATH"] = str(instance)
    return create_app({"TESTING": True, "SECRET_KEY": "s", "SQLALCHEMY_DATABASE_URI": database_url})


def empty_database(app) -> None:
    """Every table of the site empty, as on a new site: the app made them when it started (db.create_tables), and
    a test finds none of another test's rows. A PostgreSQL database serves every test of a test process, so its
    tables are emptied in one statement rather than dropped and made again (a fifth of a second a test)."""
    from sqlalchemy import delete, text

    from companion.web.core.db import Base, db

    with app.app_context():
        tables = Base.metadata.sorted_tables
        with db.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                names = ", ".join(f'"{table.name}"' for table in tables)
                connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
            else:
                for table in reversed(tables):
                    connection.execute(delete(table))


BOOKS_START = '<section class="books"'


def without_books(page: str) -> str:
    """A seat's page without its notebook that keeps the books, which prints the mode's whole clue list (the same
    on every phone, as on the back of the box's clue books), so that a scan for clue sentences reads the rest."""
    start = page.find(BOOKS_START)
    return page if start < 0 else page[:start] + page[page.index("</section>", start):]

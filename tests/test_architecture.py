"""Each game's rules package is pure logic: standard library only, and above all no Flask; and both have one shape."""

import ast
import importlib
import inspect
import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import REPO

PACKAGE_ROOT = REPO / "companion"
ENGINES = ["cryptid", "cryptid.markers", "decrypto"]  # cryptid.markers: a variant's engine, of the same shape
WEB_PACKAGES = {"flask", "werkzeug", "jinja2", "wtforms", "qrcode", "sqlalchemy", "flask_babel"}


@pytest.mark.parametrize("engine", ENGINES)
def test_importing_the_engine_loads_no_web_code(engine):
    code = f"import sys, companion.{engine}; print(sorted(m for m in sys.modules if m.split('.')[0] in {WEB_PACKAGES!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_modules_import_only_the_standard_library(engine):
    paths = sorted((PACKAGE_ROOT / engine.replace(".", "/")).rglob("*.py"))
    assert len(paths) >= 3, f"no engine modules found under companion/{engine}"
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    continue
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in sys.stdlib_module_names, f"{path.name} imports {name}"


def _lint_imports(root) -> subprocess.CompletedProcess:
    """import-linter's contracts from pyproject.toml, checked on the package in `root`."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", LINT_IMPORTS], cwd=root, env=env, capture_output=True, text=True)


# The command line's entry point, run as a module so that the test needs no script on PATH.
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def test_the_import_contracts_hold():
    result = _lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout and result.stdout.count("KEPT") >= 8


@pytest.mark.parametrize(
    "module, line, broken",
    [
        ("web/core/errors.py", "from companion.web.cryptid import common", "The web core knows no game"),
        ("web/decrypto/store.py", "from companion.cryptid import codes", "Decrypto's web part uses Decrypto's engine only"),
        ("cryptid/board.py", "import flask", "Engines import none of the site's dependencies"),
        ("decrypto/rules.py", "from companion.decrypto import game", "No import circles"),
        ("cryptid/hexgrid.py", "from companion.web.core import store", "Operator tools stand above the site"),
        ("cryptid/view.py", "from companion.cryptid.markers import rules", "A variant builds on the classic engine"),
    ],
)
def test_each_import_contract_fails_when_its_rule_is_broken(tmp_path, module, line, broken):
    shutil.copytree(PACKAGE_ROOT, tmp_path / "companion", ignore=shutil.ignore_patterns("__pycache__", "translations"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    with open(tmp_path / "companion" / module, "a", encoding="utf-8") as source:
        source.write(f"\n{line}  # noqa\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
    assert any(broken in row and "BROKEN" in row for row in result.stdout.splitlines()), result.stdout


# One engine shape (docs/architecture.md): the names every engine exports, and how they behave.
SHAPE = {"Move", "MoveFormatError", "IllegalMove", "State", "View", "view", "legal_moves"}


def sample_moves(engine: str) -> list:
    """One move of each kind the engine has, with every field set to something other than its default."""
    if engine == "cryptid":
        from companion.cryptid import play as m

        return [m.Start(2), m.Name(1, "Ana"), m.Cube(1, 5), m.Ask(1, 2, 107), m.Search(3, 40), m.Disc(3, 41), m.Leave(2),
                m.VoteGone(1, 3), m.WithdrawGone(2, 3), m.HostGone(2), m.Reveal()]
    if engine == "cryptid.markers":
        from companion.cryptid import markers as m

        return [m.Start(2), m.Name(1, "Ana"), m.NotHere(1, 5), m.ItsHere(3, 40), m.Leave(2), m.End(),
                m.VoteGone(1, 3), m.WithdrawGone(2, 3), m.HostGone(2)]
    from companion.decrypto import moves as m

    return [m.Join("p1", "white", "Ann", 2), m.Leave("p1"), m.Start(), m.ShowCode("black", 3),
            m.GiveClues("white", ("a", "b", "c"), 1), m.Guess("black", "white", (4, 2, 1), 2),
            m.GuessKeywords("white", ("a", "", "c", "d")), m.CountKeywords("black", 3, None),
            m.AcceptKeyword("white", 2), m.NextRound("black", 2), m.NextRound()]


def started_game(engine: str):
    """A game just started, built through the shared entry points only: the engine, its setup, a seat, the moves
    played, the state, and a move the rules now refuse (starting again)."""
    module = importlib.import_module(f"companion.{engine}")
    if engine == "cryptid":
        from companion.cryptid.play import Start

        setup, seat, moves, again = module.load_game("ZJDRN-A9N3W"), 1, [Start(1)], Start(2)
    elif engine == "cryptid.markers":
        from companion.cryptid import load_game

        setup, seat, moves, again = load_game("ZJDRN-A9N3W"), 1, [module.Start(1)], module.Start(2)
    else:
        from tests.helpers.decrypto import make_setup

        setup, seat, moves, again = make_setup(), module.Seat("white", 1), [], module.Start()
    state = module.State.initial(setup)
    for move in moves:
        state = state.apply(move)
    return module, setup, seat, moves, state, again


def test_both_engines_export_the_same_shape():
    exported = [set(importlib.import_module(f"companion.{engine}").__all__) for engine in ENGINES]
    assert all(SHAPE <= names for names in exported)


@pytest.mark.parametrize("engine", ENGINES)
def test_each_move_kind_round_trips_through_its_one_json_form(engine):
    module = importlib.import_module(f"companion.{engine}")
    moves = sample_moves(engine)
    kinds = importlib.import_module(f"companion.{engine}.{'play' if engine == 'cryptid' else 'moves'}").MOVE_TYPES
    assert all(issubclass(kind, module.Move) for kind in kinds.values())
    assert {type(move) for move in moves} == set(kinds.values()), "a move kind without a sample here"
    for move in moves:
        data = json.loads(json.dumps(move.to_json()))
        assert data["action"] == move.action and "type" not in data
        assert module.Move.from_json(data) == move
    with pytest.raises(module.MoveFormatError):
        module.Move.from_json({"action": "no such move"})
    assert issubclass(module.MoveFormatError, ValueError) and issubclass(module.IllegalMove, ValueError)


@pytest.mark.parametrize("engine", ENGINES)
def test_each_engine_folds_moves_and_lists_and_views_them_the_same_way(engine):
    module, setup, seat, moves, state, again = started_game(engine)
    assert state.version == len(moves) and module.State.replay(setup, moves) == state
    listed = module.legal_moves(state, seat)
    assert listed and all(isinstance(move, module.Move) for move in listed)
    assert state.apply(listed[0]).version == state.version + 1
    with pytest.raises(module.IllegalMove) as refused:
        module.State.replay(setup, [*moves, again])
    assert refused.value.reason == "already_started" and isinstance(refused.value.params, dict) and str(refused.value)
    # view is a plain function of (state, viewer), with the reader's gettext last; the state has no view of its own.
    assert list(inspect.signature(module.view).parameters) == ["state", "viewer", "gettext"]
    assert not hasattr(module.State, "view")
    for viewer in (None, seat):
        seen = module.view(state, viewer)
        assert isinstance(seen, module.View) and seen == module.view(state, viewer)
        assert json.loads(json.dumps(seen.to_json())) == seen.to_json()
    assert module.view(state, seat, gettext=lambda text: "» " + text) != module.view(state, seat)


def test_a_variant_shares_the_classic_engine_s_error_and_move_bases():
    """Markers' moves are moves of Cryptid and its refusals Cryptid's IllegalMove, so code that serves Cryptid
    handles either; each variant reads back only its own kinds."""
    from companion.cryptid import IllegalMove, Move, markers

    assert issubclass(markers.IllegalMove, IllegalMove) and issubclass(markers.Move, Move)
    assert isinstance(markers.VoteGone(1, 2), markers.Move)
    with pytest.raises(markers.MoveFormatError):
        markers.Move.from_json({"action": "ask", "seat": 1, "target": 2, "row": 0, "col": 0})


def test_every_variant_a_table_can_name_has_a_record_for_the_store_and_one_for_the_routes(app):
    """The store and the shared routes ask a table's variant record instead of branching on the variant: each
    value refereed_tables.variant may hold has both (a variant without one would fail on its first table)."""
    from companion.web.cryptid.head import TableHead
    from companion.web.cryptid.models import VARIANTS as NAMES
    from companion.web.cryptid.tables import VariantWeb, web_of
    from companion.web.cryptid.variants import VARIANTS

    assert set(VARIANTS) == set(NAMES)
    for name in NAMES:
        assert VARIANTS[name].name == name
        assert isinstance(web_of(TableHead("0", True, variant=name)), VariantWeb)

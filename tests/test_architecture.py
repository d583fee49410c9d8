"""Each game's rules package is pure logic: standard library only, and above all no Flask."""

import ast
import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import REPO

PACKAGE_ROOT = REPO / "companion"
ENGINES = ["cryptid", "decrypto"]
WEB_PACKAGES = {"flask", "werkzeug", "jinja2", "wtforms", "qrcode", "sqlalchemy", "flask_babel"}


@pytest.mark.parametrize("engine", ENGINES)
def test_importing_the_engine_loads_no_web_code(engine):
    code = f"import sys, companion.{engine}; print(sorted(m for m in sys.modules if m.split('.')[0] in {WEB_PACKAGES!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_modules_import_only_the_standard_library(engine):
    paths = sorted((PACKAGE_ROOT / engine).rglob("*.py"))
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
    assert "BROKEN" not in result.stdout and result.stdout.count("KEPT") >= 7


@pytest.mark.parametrize(
    "module, line, broken",
    [
        ("web/core/errors.py", "from companion.web.cryptid import common", "The web core knows no game"),
        ("web/decrypto/store.py", "from companion.cryptid import codes", "Decrypto's web part uses Decrypto's engine only"),
        ("cryptid/board.py", "import flask", "Engines import none of the site's dependencies"),
        ("decrypto/rules.py", "from companion.decrypto import game", "No import circles"),
        ("cryptid/hexgrid.py", "from companion.web.core import store", "Operator tools stand above the site"),
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

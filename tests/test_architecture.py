"""Each game's rules package is pure logic: standard library only, and above all no Flask."""

import ast
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

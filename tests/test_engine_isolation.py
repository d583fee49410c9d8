"""companion.game is pure logic: standard library only, and above all no Flask."""

import ast
import subprocess
import sys
from pathlib import Path

GAME = Path(__file__).resolve().parents[1] / "companion" / "game"


def test_importing_the_engine_loads_no_web_code():
    code = "import sys, companion.game; print(sorted(m for m in sys.modules if m.split('.')[0] in {'flask', 'werkzeug', 'jinja2', 'wtforms', 'qrcode'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_engine_modules_import_only_the_standard_library():
    for path in GAME.glob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
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

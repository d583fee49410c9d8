"""`pip install .` gives a site that works anywhere: the wheel carries the templates, static files and
translations, and the installed copy, started from another folder, serves every page in every language."""

import email
import http.cookiejar
import importlib.metadata
import json
import os
import re
import shutil
import site
import subprocess
import sys
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.helpers import GOLDEN, REPO
from tests.helpers.serving import SERVE, free_port, running_server

# One worker runs the whole module (pyproject's `--dist loadgroup`): the wheel and its virtual environment are
# module-scoped fixtures, built once, where tests spread over workers would each build their own.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]

SHIPPED_FILES = ["pyproject.toml", "setup.py", "README.md"]
SHIPPED_FOLDERS = ["companion", "templates", "static"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip install .` would build, from a clean copy of the project (no build/ left from before)."""
    source = tmp_path_factory.mktemp("source")
    for name in SHIPPED_FILES:
        shutil.copy2(REPO / name, source / name)
    for name in SHIPPED_FOLDERS:
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", out, source],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("cryptid_companion-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed; its bin (Scripts) folder."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root], check=True)
    scripts = root / ("Scripts" if os.name == "nt" else "bin")
    python = scripts / ("python.exe" if os.name == "nt" else "python")
    purelib = subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    # The dependencies come from this interpreter's site-packages, read as plain folders: their .pth hooks
    # (an editable install of the checkout among them) do not run, so the wheel's copy is the only companion.
    Path(purelib.decode().strip(), "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel],
        check=True,
        capture_output=True,
    )
    return scripts


def _elsewhere(tmp_path) -> dict:
    """Environment for a run outside the checkout: nothing points back at it."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    environment["COMPANION_INSTANCE_PATH"] = str(tmp_path / "instance")
    return environment


def test_the_wheel_carries_templates_static_files_and_translations(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = [f"companion/{p.relative_to(REPO).as_posix()}" for p in (REPO / "templates").rglob("*.html")]
    static = [f"companion/static/{p.name}" for p in (REPO / "static").iterdir() if p.is_file()]
    catalogs = [p.relative_to(REPO).as_posix() for p in (REPO / "companion" / "translations").rglob("*.mo")]
    for expected in (templates, static, catalogs):
        assert expected and sorted(set(expected) - names) == []
    assert not any(name.startswith("companion/static/docs/") for name in names)  # the README's screenshot


def test_the_installed_site_serves_every_page_from_another_folder(venv, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = GOLDEN[2]["code"]
    python = venv / ("python.exe" if os.name == "nt" else "python")
    port = free_port()
    command = [python, *SERVE[1:], "--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
    with running_server(command, port, cwd=elsewhere, env=_elsewhere(tmp_path)) as banner:
        assert "Instance folder (secret key, SQLite database): " + str(tmp_path / "instance") in banner
        base = f"http://127.0.0.1:{port}"
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        home = browser.open(f"{base}/").read().decode()
        csrf = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', home).group(1)
        form = urllib.parse.urlencode({"csrf_token": csrf, "players": "3"}).encode()
        with browser.open(f"{base}/", data=form) as dealt:  # follows the 303 to the new game's host screen
            host, setup = dealt.url, dealt.read().decode()
        seat = re.search(r'<a href="[^"]*(/s/[^"]+)" class="seat-link"', setup).group(1)
        for path in ["/", urllib.parse.urlsplit(host).path, f"/games/{code}", f"/games/{code}/print", seat,
                     "/help/setup", "/help/play", "/help/decrypto", "/decrypto/new", "/static/style.css",
                     "/static/cryptid/host.css", "/static/cryptid/table.js", "/static/app.js", "/static/play.js",
                     "/static/play.css",
                     "/static/decrypto/decrypto.css", "/static/favicon.svg"]:
            with browser.open(base + path) as response:
                assert response.status == 200, path
                assert len(response.read()) > 100, path
        with browser.open(f"{base}/language?lang=el&next=/help/play") as response:  # follows the 303
            assert response.status == 200 and response.url.endswith("/help/play")
            greek = response.read().decode()
        assert 'lang="el"' in greek and len(re.findall(r"[\u0370-\u03ff]", greek)) > 200
    assert (tmp_path / "instance" / "secret_key").is_file()


# Run in the virtual environment: which distributions the site really loads while it serves.
USED_DISTRIBUTIONS = """
import importlib.metadata, json, sys
import companion.ops.cli, companion.ops.server, granian, waitress
from companion.web.core.app import create_app
client = create_app({"TESTING": True}).test_client()
for path in ("/", "/help/play", "/static/style.css"):
    assert client.get(path, headers={"Accept-Encoding": "br"}).status_code == 200
owners = importlib.metadata.packages_distributions()
loaded = {name.partition(".")[0] for name in sys.modules} - set(sys.stdlib_module_names)
print(json.dumps(sorted({owner for name in loaded for owner in owners.get(name, [])})))
"""


# Loaded when present, never needed: qrcode imports Pillow if it can, and draws its SVG without it; granian
# imports what its optional features use (.env files, process titles, reloading, anyio) if it can.
OPTIONAL = {"pillow", "python-dotenv", "setproctitle", "watchfiles", "anyio"}


def _required(wheel: Path) -> set[str]:
    """Every distribution the wheel's dependencies bring, and theirs in turn (extras followed)."""
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        pending = [(line, {""}) for line in email.message_from_bytes(archive.read(metadata)).get_all("Requires-Dist")]
    seen = set()
    while pending:
        line, extras = pending.pop()
        requirement = Requirement(line)
        if requirement.marker and not any(requirement.marker.evaluate({"extra": extra}) for extra in extras):
            continue
        name, wanted = canonicalize_name(requirement.name), frozenset(requirement.extras | {""})
        if (name, wanted) not in seen:
            seen.add((name, wanted))
            pending += [(line, wanted) for line in importlib.metadata.requires(name) or []]
    return {name for name, _ in seen}


def test_the_wheel_declares_every_distribution_the_site_loads(wheel, venv, tmp_path):
    python = venv / ("python.exe" if os.name == "nt" else "python")
    result = subprocess.run(
        [python, "-c", USED_DISTRIBUTIONS], capture_output=True, text=True, cwd=tmp_path, env=_elsewhere(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    used = {canonicalize_name(name) for name in json.loads(result.stdout)} - {"cryptid-companion"}
    assert "flask" in used and "flask-compress" in used
    assert sorted(used - _required(wheel) - OPTIONAL) == []


def test_the_installed_script_names_itself(venv, tmp_path):
    script = venv / ("cryptid-companion.exe" if os.name == "nt" else "cryptid-companion")
    result = subprocess.run([script, "--help"], capture_output=True, text=True, env=_elsewhere(tmp_path), cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("usage: cryptid-companion ")

"""Browser tests: Playwright driving Debian's Chromium against the site on a real waitress server."""

from __future__ import annotations

import os
import shutil
import threading

import pytest
import waitress

from companion.web.core.app import create_app
from companion.web.core.computers import start_thread
from companion.web.cryptid.dealing import dealer
from companion.web.cryptid.tokens import host_token

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def _chromium() -> str:
    """Debian's Chromium headless shell where installed, else Debian's Chromium. The shell is the same Blink and V8
    without the desktop browser around them, what Playwright itself runs headless: a phone's page costs a fifth
    of the CPU to open, and the browser tests half (docs/testing.md)."""
    path = shutil.which("chromium-headless-shell") or shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    message = "Chromium is not installed: `apt-get install chromium-headless-shell` to run the browser tests."
    if os.environ.get("CI"):
        pytest.fail(message)  # CI must run them, never skip
    pytest.skip(message)


@pytest.fixture(scope="session")
def live_app(tmp_path_factory):
    os.environ.setdefault("COMPANION_INSTANCE_PATH", str(tmp_path_factory.mktemp("instance")))
    return create_app({"SECRET_KEY": "browser-tests"})


@pytest.fixture(scope="session")
def host_of(live_app, live_server):
    """The host screen's URL of a game on the live server."""

    def url(code: str) -> str:
        with live_app.test_request_context():
            return f"{live_server}/h/{host_token(code)}"

    return url


@pytest.fixture(scope="session")
def served_game(live_app):
    """A game as the live server computes it: its clues come from the server's own key."""

    def game(code: str):
        with live_app.app_context():
            return dealer().load(code)

    return game


@pytest.fixture(scope="session")
def live_server(live_app):
    """The production server on a free loopback port; QR codes point at it."""
    app = live_app
    # Every live page holds a waiting request (long poll), so allow plenty of threads.
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=48)
    url = f"http://127.0.0.1:{server.effective_port}"
    app.config["PUBLIC_URL"] = url
    # Never closed: waitress 3.0 has no way to stop a running server, and close() from here races its loop's
    # select() into an error in that thread (Pylons/waitress#468). The thread and the socket end with the worker.
    threading.Thread(target=server.run, daemon=True).start()
    yield url


@pytest.fixture(scope="session")
def browser():
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield StillBrowser(browser)
        browser.close()


class StillBrowser:
    """The browser, whose pages ask for reduced motion unless a test says otherwise. The pages' flashes and
    pulses after a move (static/cryptid/play.css, which honours the setting) are drawn in software here, frame by
    frame on every open page: without them a whole game in the browser takes a quarter less CPU."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def new_context(self, **options):
        return self._browser.new_context(**{"reduced_motion": "reduce"} | options)

    def new_page(self, **options):
        return self._browser.new_page(**{"reduced_motion": "reduce"} | options)

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture
def computer_worker(live_app):
    """The computer players' worker, with short pauses, beside the live server."""
    worker = start_thread(live_app, pause=(0.05, 0.2))
    yield worker
    worker.stop()


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    yield context.new_page()
    context.close()


@pytest.fixture
def second_phone(browser):
    context = browser.new_context(**PHONE)
    yield context.new_page()
    context.close()

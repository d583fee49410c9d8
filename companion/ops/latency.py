"""How long a refereed move takes to reach the other phones, measured in real browsers.

    python -m companion.ops.latency http://127.0.0.1:5000 [--moves 30] [--players 3] [--reduced-motion]

Against a running site: deals a refereed game through the JSON API (docs/cryptid-play.md section 8), opens every
seat's page in headless Chromium (Playwright, as the browser tests use it), then makes moves through the API one
at a time. Each page records, with the browser's own clock, the moment its live fragment shows the new move; the
latency of a move on a phone is that moment minus the moment the move was sent. Prints p50 (the median), p95 and
p99 (ops/measure.py) and the largest, over every (move, phone) pair, with the machine's cores and load average
before and after. A tool to run by hand, never a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import time
import urllib.error
import urllib.request

# Every page notes when its live fragment (#play) shows a new version of the table (data-version), on the wall clock
# (performance.timeOrigin + now(), which Chromium keeps in step with the system clock the sender reads).
OBSERVER = """
window.seen = {};
const note = () => {
  const play = document.getElementById("play");
  const version = play && Number(play.dataset.version);
  if (version && !(version in window.seen)) window.seen[version] = performance.timeOrigin + performance.now();
};
new MutationObserver(note).observe(document.body, { childList: true, subtree: true });
note();
"""


def call(url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def one_move(base: str, seats: list[str], state: dict, rng: random.Random) -> dict:
    """Make one legal move for the seat on turn (trying hexes until the referee accepts one); the new state."""
    seat = state["turn"]
    token = seats[seat - 1].rsplit("/", 1)[-1]
    hexes = [(row, col) for row in range(9) for col in range(12)]
    rng.shuffle(hexes)
    others = [s for s in range(1, len(seats) + 1) if s != seat]
    for row, col in hexes:
        move = {"action": "cube", "hex": {"row": row, "col": col}}
        if state["pending"] == "move":
            move = {"action": "ask", "seat": rng.choice(others), "hex": {"row": row, "col": col}}
        sent = time.time() * 1000
        status, answer = call(f"{base}/api/seats/{token}/play", move)
        if status == 200:
            answer["sent_ms"] = sent
            return answer
    raise SystemExit(f"seat {seat} found no legal move")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the site, e.g. http://127.0.0.1:5000")
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--players", type=int, default=3, choices=(3, 4, 5))
    parser.add_argument("--reduced-motion", action="store_true",
                        help="the pages ask for reduced motion: no flash or pulse after a move, whose frames the "
                             "browsers draw on the cores they share here with the server (a phone has its own)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from companion.ops.measure import machine_line, summarize

    print(machine_line(), flush=True)
    base = args.url.rstrip("/")
    status, table = call(f"{base}/api/tables", {"players": args.players})
    if status != 201:
        raise SystemExit(f"could not deal a game: {status} {table}")
    # The API's addresses are the phones'; a browser on this machine opens them on the URL given here.
    seats = [base + "/s/" + seat["url"].rsplit("/s/", 1)[1] for seat in table["seats"]]
    rng = random.Random(20)
    latencies = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"])
        pages = []
        for url in seats:
            # bypass_csp: the site forbids eval, which Playwright's wait_for_function uses to poll the page.
            motion = "reduce" if args.reduced_motion else "no-preference"
            page = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True,
                                       reduced_motion=motion).new_page()
            page.goto(url)
            page.evaluate(OBSERVER)
            pages.append(page)
        state = call(f"{base}/api/tables/{table['code']}/play")[1]
        for _ in range(args.moves):
            if state["phase"] == "over":
                break
            state = one_move(base, seats, state, rng)
            version = state["version"]
            for page in pages:
                page.wait_for_function(f"window.seen[{version}] !== undefined", timeout=60_000)
                latencies.append(page.evaluate(f"window.seen[{version}]") - state["sent_ms"])
        browser.close()
    summary = summarize([latency / 1000 for latency in latencies], digits=0)
    print(f"{len(latencies)} move arrivals on {len(pages)} phones: {summary.text()}, max {max(latencies):.0f} ms")
    print(machine_line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

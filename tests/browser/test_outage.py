"""A database outage on a live page: the page's script hears 503 with Retry-After, keeps asking, and shows the
game again as soon as the database is back."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect
from sqlalchemy import create_engine

from companion.web.core.db import db


def test_a_live_page_keeps_asking_through_a_database_outage(live_app, live_server, phone, monkeypatch):
    request = urllib.request.Request(live_server + "/api/tables", data=json.dumps({"players": 3}).encode(),
                                     headers={"Content-Type": "application/json"})
    table = json.loads(urllib.request.urlopen(request, timeout=30).read())
    seat_url = table["seats"][0]["url"].replace(live_app.config["PUBLIC_URL"], live_server)
    other_seat = table["seats"][1]["url"].rpartition("/s/")[2]
    refusals = []
    phone.on("response", lambda response: response.status == 503 and "/live" in response.url
             and refusals.append(response.headers.get("retry-after")))
    # Waiting requests end after 2 s instead of 25 s here, so that the outage shows within seconds.
    monkeypatch.setitem(live_app.config, "LIVE_WAIT_SECONDS", 2.0)
    monkeypatch.setitem(live_app.config, "DATABASE_RETRY_SECONDS", 1)  # the page asks again after 1 s, not 5
    phone.goto(seat_url)
    expect(phone.locator("#play")).to_be_visible()
    with live_app.app_context():
        working = db.engines[None]
        db.engines[None] = create_engine("postgresql+psycopg://nobody@127.0.0.1:9/none")  # refused: the outage
    try:
        # The page's waiting request ends and finds no database, then asks again, and again.
        phone.wait_for_event("response", lambda response: response.status == 503 and "/live" in response.url,
                             timeout=60_000)
        phone.wait_for_event("response", lambda response: response.status == 503 and "/live" in response.url,
                             timeout=60_000)
    finally:
        with live_app.app_context():
            db.engines[None] = working
    assert refusals and all(int(seconds) > 0 for seconds in refusals)
    move = urllib.request.Request(f"{live_server}/api/seats/{other_seat}/play", method="POST",
                                  data=json.dumps({"action": "name", "name": "Back again"}).encode(),
                                  headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(move, timeout=30).status == 200
    expect(phone.locator("#play")).to_contain_text("Back again", timeout=60_000)


def test_a_live_page_waits_longer_after_each_refusal_in_a_row(live_app, live_server, phone):
    """The page's script (retryDelay, static/app.js, for play.js and the table panel's long poll) waits what
    Retry-After asks, doubled with each refusal in a row up to a minute, with a random part of a quarter either
    way: a flood of phones refused together thins out instead of coming back together every second."""
    request = urllib.request.Request(live_server + "/api/tables", data=json.dumps({"players": 3}).encode(),
                                     headers={"Content-Type": "application/json"})
    table = json.loads(urllib.request.urlopen(request, timeout=30).read())
    phone.goto(table["seats"][0]["url"].replace(live_app.config["PUBLIC_URL"], live_server))
    expect(phone.locator("#play")).to_be_visible()
    delays = phone.evaluate("""() => {
        const refused = new Response("", {status: 429, headers: {"Retry-After": "1"}});
        const at = (share) => { Math.random = () => share; return [1, 2, 3, 4, 8, 30].map((n) => retryDelay(refused, n)); };
        return {middle: at(0.5), low: at(0), high: at(0.999999), noAnswer: (Math.random = () => 0.5, retryDelay(null, 1))};
    }""")
    assert delays["middle"] == [1000, 2000, 4000, 8000, 60000, 60000]
    assert delays["low"][0] == 750 and round(delays["high"][0]) == 1250
    assert delays["noAnswer"] == 3000  # no Retry-After (no answer at all): 3 s

"""A database outage on a live page: the page's script hears 503 with Retry-After, keeps asking, and shows the
game again as soon as the database is back."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect
from sqlalchemy import create_engine

from companion.web.core.db import db


def test_a_live_page_keeps_asking_through_a_database_outage(live_app, live_server, phone):
    request = urllib.request.Request(live_server + "/api/tables", data=json.dumps({"players": 3}).encode(),
                                     headers={"Content-Type": "application/json"})
    table = json.loads(urllib.request.urlopen(request, timeout=30).read())
    seat_url = table["seats"][0]["url"].replace(live_app.config["PUBLIC_URL"], live_server)
    other_seat = table["seats"][1]["url"].rpartition("/s/")[2]
    refusals = []
    phone.on("response", lambda response: response.status == 503 and "/live" in response.url
             and refusals.append(response.headers.get("retry-after")))
    phone.goto(seat_url)
    expect(phone.locator("#play")).to_be_visible()
    with live_app.app_context():
        working = db.engines[None]
        db.engines[None] = create_engine("postgresql+psycopg://nobody@127.0.0.1:9/none")  # refused: the outage
    try:
        # The page's waiting request ends (25 s at most) and finds no database, then asks again, and again.
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

"""Device claims on seats (core/claims.py): the first browser holds a seat, the same browser resumes it, another
browser sees it held elsewhere until it takes it over, and the first browser then learns the seat moved."""

from __future__ import annotations

import pytest
from flask import Blueprint
from sqlalchemy import insert

from companion.web.core import claims
from companion.web.core.db import db
from companion.web.core.store import read_stamp


pytestmark = pytest.mark.postgresql  # the database is the point of every test here


@pytest.fixture
def claiming_app(fresh_database_app):
    """The site plus three tiny routes (plain GETs, so no form is needed) that claim, read and take over a seat for whichever browser calls."""
    routes = Blueprint("claims_test", __name__)

    @routes.get("/claim/<code>/<seat>")
    def claim(code, seat):
        return claims.claim(code, seat)

    @routes.get("/status/<code>/<seat>")
    def status(code, seat):
        return claims.status(code, seat)

    @routes.get("/race/<code>/<seat>")
    def race(code, seat):
        """A claim that another process's claim beats: this request saw the seat free, then lost the insert."""
        assert claims.status(code, seat) == claims.FREE  # read, and remembered for the request
        with db.engine.begin() as other:  # another process's claim lands meanwhile
            other.execute(insert(claims.SeatClaim).values(code=code, seat=seat, device="another-phone"))
        return claims.claim(code, seat)

    @routes.get("/take/<code>/<seat>")
    def take(code, seat):
        claims.take_over(code, seat)
        return claims.status(code, seat)

    fresh_database_app.register_blueprint(routes)
    return fresh_database_app


def test_the_first_browser_holds_the_seat_and_resumes_it(claiming_app):
    first = claiming_app.test_client()
    looked = first.get("/status/ABCDE-FGHJK/2")
    assert looked.text == claims.FREE
    # Looking gives the browser its device id already, so that a claim sent before this answer's next one (a tap
    # while the page's first live update waits) is the same device's.
    assert claims.DEVICE_COOKIE in looked.headers["Set-Cookie"] and "HttpOnly" in looked.headers["Set-Cookie"]
    answer = first.get("/claim/ABCDE-FGHJK/2")
    assert answer.text == claims.HELD
    assert "Set-Cookie" not in answer.headers
    again = first.get("/claim/ABCDE-FGHJK/2")  # the same browser opens its link again
    assert again.text == claims.HELD
    assert "Set-Cookie" not in again.headers  # its cookie is kept, not replaced
    assert first.get("/claim/ABCDE-FGHJK/3").text == claims.HELD  # another seat is another claim
    with claiming_app.app_context():
        assert claims.claimed_seats("ABCDE-FGHJK") == {"2", "3"}
        assert claims.claimed_seats("OTHER-TABLE") == frozenset()


def test_a_claim_that_loses_its_race_sees_the_seat_held_elsewhere(claiming_app):
    """The request read the seat free; its own claim then fails on the other's row and rolls back, so what it
    read of the table is news to it: it answers ELSEWHERE, not HELD nor FREE."""
    client = claiming_app.test_client()
    assert client.get("/claim/ABCDE-FGHJK/3").text == claims.HELD  # the table exists (its claims refer to it)
    assert client.get("/race/ABCDE-FGHJK/2").text == claims.ELSEWHERE


def test_another_browser_asks_first_and_the_first_one_learns_it_lost_the_seat(claiming_app):
    first, second = claiming_app.test_client(), claiming_app.test_client()
    first.get("/claim/ABCDE-FGHJK/2")
    assert second.get("/claim/ABCDE-FGHJK/2").text == claims.ELSEWHERE
    with claiming_app.app_context():
        before = read_stamp("ABCDE-FGHJK")
    assert second.get("/take/ABCDE-FGHJK/2").text == claims.HELD
    with claiming_app.app_context():
        assert read_stamp("ABCDE-FGHJK") != before  # live updates wake on the table's stamp
    assert first.get("/status/ABCDE-FGHJK/2").text == claims.ELSEWHERE
    assert first.get("/claim/ABCDE-FGHJK/2").text == claims.ELSEWHERE  # opening the link again does not steal it back
    assert first.get("/take/ABCDE-FGHJK/2").text == claims.HELD  # confirming does


def test_a_forged_device_cookie_is_replaced(claiming_app):
    browser = claiming_app.test_client()
    browser.set_cookie(claims.DEVICE_COOKIE, "x" * 200)
    answer = browser.get("/claim/ABCDE-FGHJK/1")
    assert answer.text == claims.HELD
    assert "x" * 40 not in answer.headers["Set-Cookie"]

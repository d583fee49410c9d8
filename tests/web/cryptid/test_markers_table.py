"""What a Markers table has of a classic refereed table (docs/cryptid-markers.md section 5): the host hands a seat
to a computer player, the table marks a vanished player gone (computers following the people), and a finished
game is replayed step by step; through the real routes, reading every response a phone receives."""

from __future__ import annotations

import re

import pytest

from companion.cryptid import markers
from companion.cryptid.hexgrid import hex_name, hexes_of
from companion.cryptid.text import clue_text
from companion.web.core.computers import take_all_pending
from companion.web.cryptid.tokens import host_token, seat_token
from tests.web.cryptid.test_markers_play import server_state


@pytest.fixture
def site(fresh_database_app):
    fresh_database_app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)
    with fresh_database_app.app_context():
        yield fresh_database_app


def deal(client, players: int, **extra) -> str:
    return client.post("/api/tables", json={"players": players, "variant": "markers"} | extra).get_json()["code"]


def phones_see_no_secret(client, code: str, state: markers.State, *args: str) -> None:
    """Every seat's page, live fragment and JSON (with the query `args`): no other seat's clue, and no other
    seat's sealed hex, while the game runs."""
    for seat in state.seats:
        token = seat_token(code, seat)
        html = "".join(client.get(f"/s/{token}{arg}").get_data(as_text=True) for arg in ("", *args))
        html += client.get(f"/s/{token}/markers/live").get_data(as_text=True)
        data = client.get(f"/api/seats/{token}/play").get_json()
        if state.phase == markers.OVER:
            continue
        for other in state.seats:
            if other != seat:
                for clue in state.game.seat_clues(other):
                    if clue not in state.game.seat_clues(seat):
                        assert clue_text(clue) not in html
        assert data["reveal"] is None and "habitat" not in str(data)
        for owner, hex in state.sealed:
            if owner != seat:
                assert f"sealed claim waits on {hex_name(hex)}" not in html
                assert data["sealed"] != hex_name(hex) or any(s == seat and h == hex for s, h in state.sealed)


@pytest.mark.postgresql
def test_the_host_hands_a_silent_markers_seat_to_a_computer(site):
    client = site.test_client()
    code = deal(client, 3)
    token = host_token(code)
    state = server_state(site, code)
    silent = state.turn
    page = client.get(f"/h/{token}").get_data(as_text=True)
    assert f'action="/h/{token}/markers/computer"' in page and "Yes, hand" in page
    url = f"/h/{token}/markers/computer"
    assert client.post(url, data={"target": str(silent), "level": "wizard"}).status_code == 400
    assert client.post(url, data={"target": "x", "level": "solid"}).status_code == 400
    assert client.post(url, data={"target": "7", "level": "solid"}).status_code == 400
    assert client.post("/h/nonsense/markers/computer", data={"target": "1", "level": "solid"}).status_code == 404
    # The classic table's route is not a Markers table's.
    assert client.post(f"/h/{token}/computer", data={"target": str(silent), "level": "solid"}).status_code == 404
    response = client.post(url, data={"target": str(silent), "level": "expert"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/h/{token}#play")
    assert client.post(url, data={"target": str(silent), "level": "solid"}).status_code == 409
    # Marked wherever it is named: the host's screen, the public page, every phone, the JSON.
    mark = f"Player {silent} (computer, expert)"
    assert mark in client.get(f"/h/{token}").get_data(as_text=True)
    assert mark in client.get(f"/games/{code}").get_data(as_text=True)
    data = client.get(f"/api/tables/{code}/play").get_json()
    assert [s["computer"] for s in data["seats"]] == ["expert" if s == silent else None for s in (1, 2, 3)]
    # The computer takes the turn the player left waiting; the seat's phone is told and offers no moves.
    assert take_all_pending(site) >= 1
    after = server_state(site, code)
    assert after.version > state.version and after.turn != silent
    phone = client.get(f"/s/{seat_token(code, silent)}").get_data(as_text=True)
    assert "A computer player now plays this seat." in phone and "/markers/play" not in phone
    assert mark in phone
    assert client.post(f"/s/{seat_token(code, silent)}/markers/play", data={"action": "leave"}).status_code == 409
    phones_see_no_secret(client, code, after)
    # A seat that left stays left (leaving is final); nothing is handed over once the game is over.
    other = next(s for s in (1, 2, 3) if s != silent)
    assert client.post(f"/s/{seat_token(code, other)}/markers/play", data={"action": "leave"}).status_code == 303
    assert client.post(url, data={"target": str(other), "level": "solid"}).status_code == 409
    if server_state(site, code).phase != markers.OVER:
        client.post(f"/h/{token}/markers/play", data={"action": "end"})
    last = next(s for s in (1, 2, 3) if s not in (silent, other))
    assert client.post(url, data={"target": str(last), "level": "solid"}).status_code == 409


def test_the_script_gets_the_host_fragment_after_a_hand_over(site):
    client = site.test_client()
    code = deal(client, 2)
    response = client.post(f"/h/{host_token(code)}/markers/computer", data={"target": "2", "level": "beginner"},
                           headers={"X-Requested-With": "fetch"})
    assert response.status_code == 200
    fragment = response.get_data(as_text=True)
    assert fragment.startswith('<div class="play-live') or 'id="play"' in fragment[:400]
    assert "Player 2 (computer, beginner)" in fragment


@pytest.mark.postgresql
def test_a_vanished_player_is_marked_gone_by_the_others(site):
    client = site.test_client()
    code = deal(client, 4)
    state = server_state(site, code)
    target = state.turn
    voters = [s for s in state.seats if s != target]
    seat_url = f"/s/{seat_token(code, voters[0])}/markers/play"
    page = client.get(f"/s/{seat_token(code, voters[0])}").get_data(as_text=True)
    assert "A player has vanished?" in page and 'value="vote_gone"' in page
    # Malformed (400) and illegal (409) votes change nothing.
    assert client.post(seat_url, data={"action": "vote_gone", "target": "x"}).status_code == 400
    assert client.post(seat_url, data={"action": "vote_gone", "target": str(voters[0])}).status_code == 409
    assert client.post(seat_url, data={"action": "withdraw_gone", "target": str(target)}).status_code == 409
    api = f"/api/seats/{seat_token(code, voters[1])}/play"
    assert client.post(api, json={"action": "vote_gone", "seat": "2"}).status_code == 400
    assert client.post(api, json={"action": "vote_gone"}).status_code == 400
    assert server_state(site, code).version == state.version
    # Two votes: the seat sees them; one is taken back.
    assert client.post(seat_url, data={"action": "vote_gone", "target": str(target)}).status_code == 303
    answer = client.post(api, json={"action": "vote_gone", "seat": target})
    assert answer.status_code == 200 and answer.get_json()["reveal"] is None
    assert answer.get_json()["clues"] == [clue.to_json() for clue in state.game.seat_clues(voters[1])]
    assert answer.get_json()["seats"][target - 1]["gone_votes"] == sorted(voters[:2])
    phone = client.get(f"/s/{seat_token(code, target)}").get_data(as_text=True)
    assert "2 players marked you as gone." in phone
    assert 'value="withdraw_gone"' in client.get(f"/s/{seat_token(code, voters[0])}").get_data(as_text=True)
    assert client.post(seat_url, data={"action": "withdraw_gone", "target": str(target)}).status_code == 303
    assert server_state(site, code).gone_votes[target - 1] == {voters[1]}
    phones_see_no_secret(client, code, server_state(site, code))
    assert client.post(seat_url, data={"action": "vote_gone", "target": str(target)}).status_code == 303
    assert client.post(f"/s/{seat_token(code, voters[2])}/markers/play",
                       data={"action": "vote_gone", "target": str(target)}).status_code == 303
    after = server_state(site, code)
    assert target in after.left and after.turn != target and after.hands[target - 1] == 0
    phone = client.get(f"/s/{seat_token(code, target)}").get_data(as_text=True)
    assert "The table marked you as gone." in phone and "/markers/play" not in phone
    assert f"Player {target} left the game." in client.get(f"/games/{code}").get_data(as_text=True)
    # The host marks a seat gone alone.
    host = client.get(f"/h/{host_token(code)}").get_data(as_text=True)
    assert 'value="host_gone"' in host
    assert client.post(f"/h/{host_token(code)}/markers/play",
                       data={"action": "host_gone", "target": "x"}).status_code == 400
    assert client.post(f"/h/{host_token(code)}/markers/play",
                       data={"action": "host_gone", "target": str(target)}).status_code == 409
    assert client.post(f"/h/{host_token(code)}/markers/play",
                       data={"action": "host_gone", "target": str(voters[0])}).status_code == 303
    assert voters[0] in server_state(site, code).left
    phones_see_no_secret(client, code, server_state(site, code))


def test_computers_follow_the_peoples_gone_vote(site):
    client = site.test_client()
    code = deal(client, 4, computers=[{"seat": 3, "level": "solid"}, {"seat": 4, "level": "beginner"}])
    # The game has just started and no computer has moved yet (no worker runs here): every seat is in the game.
    assert client.post(f"/s/{seat_token(code, 1)}/markers/play",
                       data={"action": "vote_gone", "target": "2"}).status_code == 303
    assert 2 not in server_state(site, code).left  # the computers have not agreed yet
    take_all_pending(site)  # computers owed a claim make it first, then they agree
    state = server_state(site, code)
    if 2 not in state.left and {1, 2} & state.out:
        pytest.skip("a computer's claims put a person out of the turns before the computers agreed")
    assert 2 in state.left and state.gone_votes[1] >= {1, 3, 4} - state.out
    assert any(e.action == markers.LEAVE and e.seat == 2 for e in state.log)


def seal_then_end(client, site, code: str) -> tuple[int, int]:
    """The seat to move seals an "it's here" claim (by the form), the others claim "not here", and the host ends
    the game before the round closes if it still runs: the sealed claim's seat and hex."""
    state = server_state(site, code)
    seat = state.turn
    hex = next(iter(hexes_of(state.its_here_choices(seat))))
    assert client.post(f"/s/{seat_token(code, seat)}/markers/play",
                       data={"do": markers.ITS_HERE, "hex": str(hex)}).status_code == 303
    phones_see_no_secret(client, code, server_state(site, code), "?replay=0", "?replay=1")
    assert client.post(f"/h/{host_token(code)}/markers/play", data={"action": "end"}).status_code == 303
    return seat, hex


def test_a_finished_game_is_replayed_with_its_sealed_claims(site):
    client = site.test_client()
    code = deal(client, 3)
    # Before the end there is no replay: the argument is ignored.
    assert "Replay:" not in client.get(f"/games/{code}?replay=0").get_data(as_text=True)
    seat, hex = seal_then_end(client, site, code)
    state = server_state(site, code)
    assert state.phase == markers.OVER
    end = client.get(f"/s/{seat_token(code, 2)}").get_data(as_text=True)
    assert "Replay the game move by move" in end and "?replay=0" in end
    pages = {"seat": f"/s/{seat_token(code, seat % 3 + 1)}", "host": f"/h/{host_token(code)}",
             "public": f"/games/{code}"}  # each page's live fragment is its address + /markers/live
    for name, url in pages.items():
        first = client.get(f"{url}?replay=0").get_data(as_text=True)
        total = int(re.search(r"Replay: move 0 of (\d+)", first).group(1))
        assert "Forward" in first and ">Back<" not in first
        seen_sealed = False
        for step in range(total + 1):
            html = client.get(f"{url}?replay={step}").get_data(as_text=True)
            assert f"Replay: move {step} of {total}" in html
            seen_sealed |= f"a sealed claim waits on {hex_name(hex)}" in html
            live = client.get(f"{url}/markers/live?replay={step}")
            assert live.status_code == 200 and f"Replay: move {step} of {total}" in live.get_data(as_text=True)
        assert seen_sealed, name
        last = client.get(f"{url}?replay=999").get_data(as_text=True)
        assert f"Replay: move {total} of {total}" in last and ">Forward<" not in last
        assert "Replay:" not in client.get(f"{url}?replay=x1").get_data(as_text=True)


def test_replay_steps_skip_names_and_votes(site):
    client = site.test_client()
    code = deal(client, 4)
    state = server_state(site, code)
    seat = state.turn
    hex = next(iter(hexes_of(state.not_here_choices(seat))))
    assert client.post(f"/s/{seat_token(code, seat)}/markers/play",
                       data={"do": markers.NOT_HERE, "hex": str(hex)}).status_code == 303
    voter = next(s for s in state.seats if s != seat)
    assert client.post(f"/s/{seat_token(code, voter)}/markers/play",
                       data={"action": "vote_gone", "target": str(seat)}).status_code == 303
    assert client.post(f"/s/{seat_token(code, voter)}/markers/play",
                       data={"action": "name", "name": "Ana"}).status_code == 303
    client.post(f"/h/{host_token(code)}/markers/play", data={"action": "end"})
    assert server_state(site, code).version == state.version + 4
    # Four moves since the start, of which only the claim wrote in the log: the replay has the start and it.
    html = client.get(f"/games/{code}?replay=0").get_data(as_text=True)
    assert "Replay: move 0 of 1" in html

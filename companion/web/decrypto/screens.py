"""What Decrypto's screens show: the live fragment's context for the host screen, a phone and the shared screen
playing a seat, each drawn from view(state, viewer) for its viewer, so a screen only ever receives what the engine
lets it see (docs/decrypto-rules.md section 11)."""

from __future__ import annotations

from datetime import datetime, timezone

from flask import render_template, request, url_for

from companion.decrypto import TABLE, TEAMS, WHITE, Seat, View, view
from companion.decrypto.rules import CLUE_LIMIT
from companion.web.core.i18n import gettext

from .forms import printed_seat
from .store import DecryptoTable

# The box's sand timer, in seconds: it runs once the first team's clues are in.
SAND_TIMER = 30


def sheets(seen: View) -> list[dict]:
    """Each team's clue sheet: under keyword numbers 1-4, every revealed clue with its round."""
    return [{"team": team, **seen.teams[team]} for team in TEAMS]


def sand_timer(table: DecryptoTable) -> dict | None:
    """The sand timer while one team's clues are in and the other's are not: seconds left, and who is slower."""
    if table.clues_in_at is None:
        return None
    elapsed = (datetime.now(timezone.utc) - table.clues_in_at).total_seconds()
    slower = next(t.team for t in table.state.current.transmissions if not t.given)
    return {"left": max(0, round(SAND_TIMER - elapsed)), "team": slower}


def live_context(table: DecryptoTable, viewer, live_url: str, act_url: str, **extra) -> dict:
    seen = view(table.state, viewer, gettext)
    return {
        "timer": sand_timer(table),
        "table": table,
        "view": seen,
        "teams": sheets(seen),
        "live_url": live_url,
        "act_url": act_url,
        "etag": live_etag(table, viewer),
        "clue_limit": CLUE_LIMIT,
        "intent": request.args.get("do", "")[:16],
        "accepts": (),
        "seats_for_host": [],
        **extra,
    }


def live_etag(table: DecryptoTable, viewer) -> str:
    seat = viewer if viewer is None or viewer == TABLE else f"{viewer.team}{viewer.number}"
    return f"decrypto-{table.version}-{seat}"


def host_context(token: str, table: DecryptoTable) -> dict:
    context = live_context(table, TABLE, url_for("decrypto.host_live", token=token),
                           url_for("decrypto.host_act", token=token), host=True)
    seen = context["view"]
    context["accepts"] = {f"{o['team']}-{o['number']}" for o in seen.can if o["action"] == "accept_keyword"}
    context["seats_for_host"] = host_seats(token, table)
    return context


def host_seats(token: str, table: DecryptoTable) -> list[dict]:
    """Every seat as the host manages it: let a lost phone's seat go, or play a seat with no phone here.
    `needed` marks a seat the table waits for that no phone can play (its encryptor, or a team without phones)."""
    state = table.state
    seats = []
    for team in TEAMS:
        roster = state.roster(team)
        no_phones = all(member.player is None for member in roster)
        for number, member in enumerate(roster, start=1):
            encrypting = state.current is not None and state.encryptor(team) == number
            key = f"{team}-{number}"
            name = member.name or gettext("Seat %(number)s", number=number)
            seats.append({
                "team": team, "key": key, "phone": member.player is not None,
                "label": gettext("White: %(name)s", name=name) if team == WHITE else gettext("Black: %(name)s", name=name),
                "url": url_for("decrypto.host_seat", token=token, seat=key),
                "needed": member.player is None and (
                    (encrypting and not state.current.of(team).given) or (no_phones and not encrypting)),
            })
    return seats


def player_context(token: str, table: DecryptoTable, player: str, **extra) -> dict:
    seat = table.state.seat_of(player)
    # The live URL keeps the step the phone is on (?do=show), so a change elsewhere does not close it.
    intent = {"do": request.args["do"][:16]} if "do" in request.args else {}
    return seat_context(table, seat, printed_seat(player), url_for("decrypto.player_live", token=token, **intent),
                        url_for("decrypto.player_act", token=token), **extra)


def seat_context(table: DecryptoTable, seat: Seat | None, printed, live_url: str, act_url: str, **extra) -> dict:
    """What one seat's screen shows: a phone, or the shared screen playing a seat that has no phone."""
    context = live_context(table, seat, live_url, act_url, host=False, **extra)
    seen = context["view"]
    acting = [offer for offer in seen.can if offer["action"] != "join"]
    joinable = [offer["team"] for offer in seen.can if offer["action"] == "join"]
    if printed is not None:
        joinable = [team for team in joinable if team == printed[0]] if seat is None else []
    context.update(
        seat=seat,
        printed=printed,
        joinable=joinable,
        my_team=None if seat is None else seen.teams[seat.team],
        can={offer["action"] + "-" + offer.get("target", ""): offer for offer in acting},
        your_turn=bool(acting),
        switch_to=[team for team in (offer["team"] for offer in seen.can if offer["action"] == "join")
                   if seat is not None and team != seat.team],
        my_name="" if seat is None else table.state.roster(seat.team)[seat.number - 1].name,
    )
    return context


def host_seat_context(token: str, table: DecryptoTable, seat: Seat, **extra) -> dict:
    """The shared screen playing a seat with no phone: that seat's own view, its moves posted by the host."""
    intent = {"do": request.args["do"][:16]} if "do" in request.args else {}
    key = f"{seat.team}-{seat.number}"
    return seat_context(table, seat, None, url_for("decrypto.host_seat_live", token=token, seat=key, **intent),
                        url_for("decrypto.host_act", token=token), acting_as=key,
                        back_url=url_for("decrypto.host", token=token), **extra)


def render_live(context: dict) -> str:
    return render_template("decrypto/_live.html", **context)

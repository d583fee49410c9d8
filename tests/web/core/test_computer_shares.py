"""Several computer workers share the turns (core/computers.py): each takes its own share when due and another
worker's turn only once it is overdue, so every turn is decided once in the usual case and none waits for ever."""

from __future__ import annotations

import pytest
from flask import Flask

from companion.web.core import computers
from companion.web.core.computers import TAKEOVER_SECONDS, Share, TurnKeeper, Worker


@pytest.fixture
def turns(monkeypatch):
    """Forty owed turns of a made-up game, and the list of those taken, in place of the site's games."""
    owed, taken = {("TABLE", n) for n in range(40)}, []

    def take(turn):
        taken.append(turn)
        owed.discard(turn)

    monkeypatch.setattr(computers, "_KEEPERS", {"game": TurnKeeper("game", lambda: sorted(owed), take)})
    return owed, taken


def test_the_shares_split_every_turn_between_the_workers_the_same_way_in_every_process():
    shares = [Share(index, 3) for index in range(3)]
    keys = [("game", ("CODE", version)) for version in range(300)]
    owners = [[share.mine(key) for share in shares] for key in keys]
    assert all(sum(owner) == 1 for owner in owners)
    assert all(60 < sum(owner[index] for owner in owners) < 140 for index in range(3))
    # CRC-32 of the repr, not Python's seeded str hash: the same turn falls to the same worker everywhere.
    assert Share(0, 3).mine(("game", ("ABCD-EFG", 12))) == Share(0, 3).mine(("game", ("ABCD-EFG", 12)))
    assert [Share(i, 2).mine(("game", ("K", 1))) for i in range(2)] in ([True, False], [False, True])
    assert Share().mine(("anything", 1)) and Share.from_text("1/4") == Share(1, 4)
    for wrong in ("4/4", "-1/2", "1", "a/b"):
        with pytest.raises(ValueError):
            Share.from_text(wrong)


def test_a_worker_takes_its_own_share_when_due_and_the_others_once_overdue(turns, monkeypatch):
    owed, taken = turns
    clock = [1000.0]
    monkeypatch.setattr(computers.time, "monotonic", lambda: clock[0])
    share = Share(0, 2)
    mine = {turn for turn in owed if share.mine(("game", turn))}
    assert 0 < len(mine) < len(owed)
    worker = Worker(Flask(__name__), pause=(0.0, 0.0), share=share)
    worker.step()  # every turn is seen and given its due time
    worker.step()
    assert set(taken) == mine
    clock[0] += TAKEOVER_SECONDS - 0.1
    worker.step()
    assert set(taken) == mine, "another worker's turn waits while its own worker may still take it"
    clock[0] += 0.2
    worker.step()
    assert not owed and len(taken) == 40 == len(set(taken))


def test_a_lone_worker_takes_every_turn_when_due(turns):
    owed, taken = turns
    Worker(Flask(__name__), pause=(0.0, 0.0)).step()
    assert not owed and len(taken) == 40


def test_every_turn_of_a_table_falls_to_the_same_worker(monkeypatch):
    # A game names the table a turn is owed at: one worker takes all of a table's turns, and keeps what its
    # computers worked out about it (a Cryptid table's clue sets) from one turn to the next.
    owed = {("move", f"TABLE{table}", version, 1) for table in range(20) for version in range(10)}
    monkeypatch.setattr(computers, "_KEEPERS", {})
    computers.register("game", lambda: sorted(owed), owed.discard, table=lambda turn: turn[1])
    taken_by = {}
    for index in range(2):
        worker = Worker(Flask(__name__), pause=(0.0, 0.0), share=Share(index, 2))
        before = set(owed)
        worker.step()
        worker.step()
        taken_by[index] = {turn[1] for turn in before - owed}
        owed |= before  # the other worker sees the same turns owed
    assert taken_by[0] and taken_by[1] and not taken_by[0] & taken_by[1]
    assert taken_by[0] | taken_by[1] == {f"TABLE{table}" for table in range(20)}

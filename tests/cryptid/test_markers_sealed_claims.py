"""A wrong "it's here" under the sealed rules the table actually plays (docs/cryptid-markers.md, point 5): when the
round ends and the seal is opened, markers change hands as the reading of point 3 says, exactly as they do for a
claim checked at once (tests/cryptid/test_markers.py covers that one)."""

import pytest

from companion.cryptid.markers import ITS_HERE, PAY, PAY_EACH, PAY_FIRST, RULES, TAKE, ItsHere, NotHere, Rules
from tests.cryptid.test_markers import find_hex, started


def test_the_table_plays_sealed_claims_and_pay_each():
    assert RULES.sealed and RULES.wrong_claim == PAY_EACH


@pytest.mark.parametrize("reading, payments", [(PAY_EACH, {(1, 2), (1, 3)}), (PAY_FIRST, {(1, 2)}),
                                               (TAKE, {(2, 1), (3, 1)})])
def test_a_wrong_sealed_its_here_pays_when_its_seal_is_opened(reading, payments):
    rules = Rules(**{**{name: getattr(RULES, name) for name in RULES.__dataclass_fields__}, "wrong_claim": reading})
    state = started(3, rules)
    wrong = find_hex(state, 1, 0, state.its_here_choices(1))  # both other clues rule it out
    state = state.apply(ItsHere(1, wrong))
    assert state.sealed == ((1, wrong),) and not [entry for entry in state.log if entry.action == PAY]
    for seat in (2, 3):  # claims nobody objects to: no marker changes hands before the seal opens
        state = state.apply(NotHere(seat, find_hex(state, seat, 0, state.not_here_choices(seat))))
    opened = next(n for n, entry in enumerate(state.log) if entry.action == ITS_HERE and entry.hex == wrong)
    assert state.sealed == () and state.winner is None
    assert {(entry.seat, entry.other) for entry in state.log[opened:] if entry.action == PAY} == payments
    assert sum(state.hands) + state.supply + len(state.markers) == 16

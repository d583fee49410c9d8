"""An independent check of docs/cryptid-rules.md section 5, written from the rules rather than from the generator."""

from __future__ import annotations

from companion.cryptid import Game
from companion.cryptid.clues import clue_areas
from companion.cryptid.hexgrid import ALL_HEXES
from companion.cryptid.hints import mentions


def intersection(masks) -> int:
    result = ALL_HEXES
    for mask in masks:
        result &= mask
    return result


def setup_problems(game: Game) -> list[str]:
    """Every rule of section 5 the game breaks (empty when valid)."""
    problems = []
    areas = clue_areas(game.board)
    clues = game.clues
    masks = [areas[c.index] for c in clues]
    expected = {2: 4, 3: 3, 4: 4, 5: 5}[game.players]
    if len(clues) != expected:
        problems.append(f"{len(clues)} clues for {game.players} players")
    if intersection(masks) != 1 << game.habitat:
        problems.append("the clues do not allow exactly the habitat")
    if len(set(clues)) != len(clues):
        problems.append("a clue appears twice")
    if any(c.negation() in clues for c in clues):
        problems.append("a clue appears with its negation")
    for k in range(len(masks)):
        if intersection(masks[:k] + masks[k + 1 :]).bit_count() < 2:
            problems.append(f"clue {clues[k].id} is redundant")
    for clue, mask in zip(clues, masks):
        if not 42 <= mask.bit_count() <= 66:
            problems.append(f"clue {clue.id} allows {mask.bit_count()} hexes")
        if not clue.allowed_in(game.mode):
            problems.append(f"clue {clue.id} is not a {game.mode} clue")
    if any(mentions(c, game.hint) for c in clues):
        problems.append(f"hint {game.hint} is contradicted by a clue")
    structures = game.board.structures
    if len(structures) != (8 if game.mode == "advanced" else 6):
        problems.append("wrong number of structures")
    if any(game.board.cell(s.hex)[0] == "water" for s in structures):
        problems.append("a structure stands on water")
    return problems

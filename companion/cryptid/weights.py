"""Weights of generator version 2, fitted to the official setups by companion/ops/fit.py.

Written by `python -m companion.ops.fit`, not by hand. They are part of the version-2 procedure:
other numbers would change version-2 games.
"""

# Clue count -> draw weight of 0, 1, 2, ... negated clues (advanced mode).
NEGATION_WEIGHTS = {
    3: (8458, 10000, 7583, 1446),
    4: (1557, 5670, 10000, 4923, 850),
    5: (603, 4676, 10000, 8916, 5688, 1140),
}

# (mode, clue count) -> clue family -> draw weight when ordering the candidate clues.
CLUE_WEIGHTS = {
    ("normal", 3): {"terrain_pair": 4952, "within_1_terrain": 1541, "within_1_animal": 10000,
        "within_2_structure": 8752, "within_2_animal": 4833, "within_3": 4549},
    ("normal", 4): {"terrain_pair": 8828, "within_1_terrain": 4535, "within_1_animal": 8628,
        "within_2_structure": 10000, "within_2_animal": 5650, "within_3": 6934},
    ("normal", 5): {"terrain_pair": 9064, "within_1_terrain": 6306, "within_1_animal": 4955,
        "within_2_structure": 10000, "within_2_animal": 4738, "within_3": 7344},
    ("advanced", 3): {"terrain_pair": 3917, "within_1_terrain": 3835, "within_1_animal": 2153,
        "within_2_structure": 2152, "within_2_animal": 6382, "within_3": 10000},
    ("advanced", 4): {"terrain_pair": 10000, "within_1_terrain": 6817, "within_1_animal": 6958,
        "within_2_structure": 8461, "within_2_animal": 9509, "within_3": 9668},
    ("advanced", 5): {"terrain_pair": 10000, "within_1_terrain": 6644, "within_1_animal": 7688,
        "within_2_structure": 9740, "within_2_animal": 7288, "within_3": 9029},
}

# Mode -> hint category -> draw weight among the categories no clue mentions.
HINT_WEIGHTS = {
    "normal": {"no_within_1": 6078, "no_within_2": 6571, "no_within_3": 10000, "no_terrain_pair": 3377,
        "no_terrain": 5698, "no_animal": 77, "no_forest": 112, "no_desert": 112, "no_swamp": 112,
        "no_mountain": 112, "no_water": 112},
    "advanced": {"no_within_1": 10000, "no_within_2": 6660, "no_within_3": 7026, "no_terrain_pair": 4729,
        "no_terrain": 8314, "no_animal": 12, "no_forest": 18, "no_desert": 18, "no_swamp": 18,
        "no_mountain": 18, "no_water": 18},
}

# (mode, clue count) -> terrain -> chance out of 10000 that a habitat there is accepted.
HABITAT_WEIGHTS = {
    ("normal", 3): {"forest": 10000, "desert": 7946, "swamp": 7808, "mountain": 7878, "water": 8683},
    ("normal", 4): {"forest": 7350, "desert": 8579, "swamp": 9418, "mountain": 10000, "water": 8755},
    ("normal", 5): {"forest": 8901, "desert": 9728, "swamp": 10000, "mountain": 8717, "water": 8715},
    ("advanced", 3): {"forest": 7345, "desert": 7141, "swamp": 6861, "mountain": 10000, "water": 7720},
    ("advanced", 4): {"forest": 6783, "desert": 6118, "swamp": 8485, "mountain": 10000, "water": 8155},
    ("advanced", 5): {"forest": 10000, "desert": 7956, "swamp": 7380, "mountain": 9770, "water": 8578},
}

"""First names for a character-level language model: 5,163 of them, shipped with teachtorch (no download).

`data/names.txt` holds the distinct first names of the 1990 U.S. Census list of frequently occurring names
(the Census Bureau's `dist.female.first` and `dist.male.first`: 4,275 female and 1,219 male names, 5,163
distinct), lowercased, one per line, in alphabetical order. The Census Bureau's lists are a work of the U.S.
government and in the public domain; teachtorch took them from the `names` package 0.3.0 on PyPI (Trey
Hunner), which ships the same two files. Every name is 2 to 11 of the letters a-z.

Karpathy's makemore trains on `names.txt`, 32,033 names from the Social Security Administration's baby-name
lists, which its repository holds and a notebook must download. This list is a sixth of that size and from an
older source, so the numbers differ a little (a bigram model's loss is about 2.34 nats here, 2.45 there), but
every lesson of makemore works the same on it.

`names_split(seed)` shuffles the names with Python's `random.Random(seed)` and cuts them 80/10/10 into
train / validation / test, as makemore does (`random.seed(42); random.shuffle(words)`). Names, not
characters, are split: no name is in two parts.
"""

import random
from pathlib import Path

NAMES_FILE = Path(__file__).resolve().parent / "data" / "names.txt"


def load_names():
    """The 5,163 names as a list of lowercase strings, in alphabetical order."""
    return NAMES_FILE.read_text(encoding="ascii").split()


def names_split(seed=42, fractions=(0.8, 0.1, 0.1)):
    """(train, val, test): lists of names, shuffled by `seed` and cut by `fractions` (which must add up to 1)."""
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"names_split: fractions must be three non-negative numbers that add up to 1, "
                         f"got {tuple(fractions)}")
    words = load_names()
    random.Random(seed).shuffle(words)
    n1 = int(fractions[0] * len(words))
    n2 = int((fractions[0] + fractions[1]) * len(words))
    return words[:n1], words[n1:n2], words[n2:]

"""teachtorch.datasets: small data sets for class that work offline. Nothing is ever downloaded.

    digits.py   load_digits, digits_split     the UCI 8x8 handwritten digits (1797 images, shipped: no download)
    toy.py      make_moons, make_spirals      2-D classification sets generated with NumPy
    names.py    load_names, names_split       5,163 first names (1990 U.S. Census, shipped) for a character model
    text.py     load_corpus, CharVocab,       Python's own documentation as a text corpus, a character
                split_corpus                  vocabulary, and a train/validation split

PyTorch keeps data sets in separate packages (torchvision.datasets, torchtext, ...) that download their
files on first use; a class with no network needs data that is already on the machine. Every function here
is deterministic: the same arguments give the same tensors on every machine.
"""

from .digits import digits_split, load_digits
from .names import load_names, names_split
from .text import CharVocab, load_corpus, split_corpus
from .toy import make_moons, make_spirals

__all__ = ["CharVocab", "digits_split", "load_corpus", "load_digits", "load_names", "make_moons", "make_spirals",
           "names_split", "split_corpus"]

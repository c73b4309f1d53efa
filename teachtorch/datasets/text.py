"""A text corpus that ships with Python, and the character vocabulary of a character-level language model.

Every CPython install carries `pydoc_data.topics`: the language reference's sections that `help("if")`
prints, about 465,000 characters of English (Python 3.11; other versions differ a little). `load_corpus()`
joins them in a fixed order. No file is downloaded, ever.

A character-level model predicts the next character. `CharVocab` numbers the distinct characters (sorted, so
the numbering is fixed by the text), `encode` turns a string into an int64 tensor of those numbers, `decode`
turns numbers back into text, as in Karpathy's makemore and nanoGPT (`stoi` / `itos`). `split_corpus` keeps
the first 90% for training and the last 10% for validation: a contiguous cut, so validation text is text the
model has not seen, not shuffled neighbours of training text.
"""

import numpy as np

from .._tensor import Tensor
from ..ops.tensor_new import from_numpy


def load_corpus():
    """Python's documentation topics (`pydoc_data.topics`) as one string, topics in alphabetical order."""
    try:
        from pydoc_data.topics import topics
    except ImportError:
        raise ImportError("load_corpus reads pydoc_data.topics from Python's standard library, which this Python "
                          "install leaves out (some Linux distributions split it into a separate package)") from None
    return "\n\n".join(topics[name] for name in sorted(topics))


def split_corpus(text, val_fraction=0.1):
    """(train, val): the first 1 - val_fraction of `text`, and the rest."""
    n_train = int(len(text) * (1 - val_fraction))
    return text[:n_train], text[n_train:]


class CharVocab:
    """The characters of a text, numbered: `stoi` maps a character to its number, `itos` a number to its
    character."""

    def __init__(self, text):
        self.itos = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, text):
        """The characters of `text` as an int64 tensor of their numbers (KeyError for an unknown character)."""
        return from_numpy(np.array([self.stoi[ch] for ch in text], dtype=np.int64))

    def decode(self, ids):
        """A string from numbers: a tensor of them, or a list."""
        if isinstance(ids, Tensor):
            ids = ids.tolist()
        return "".join(self.itos[i] for i in ids)

    def __repr__(self):
        return f"CharVocab({len(self)} characters)"

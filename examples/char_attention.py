"""Train a small character-level language model with causal self-attention, offline, on Python's own docs.

    python examples/char_attention.py [--steps 1500] [--seed 0] [--figure path.png]

The corpus is `pydoc_data.topics` (the language reference's text, installed with every CPython), split
90/10 into training and validation text. The model reads `--block` characters and predicts, at every
position, the next one: token and position embeddings, one pre-norm transformer block (causal multi-head
self-attention, then an MLP), and a linear head over the characters.

The yardstick is the unigram baseline: the loss of a model that ignores the context and always predicts
the training text's character frequencies. A model that reads its context must get well below it. At the
end the script samples text from the model.

In a terminal a tqdm bar shows the progress; run inside a notebook, teachtorch's live TrainMonitor shows
the training and validation loss on one chart, the per-layer norms, the MLP's GELU activations and
gradients, and the sampled text.
"""

import argparse
import math
import time
from collections import Counter

from tqdm import tqdm

import teachtorch as tt
from teachtorch import nn
from teachtorch.datasets import CharVocab, load_corpus, split_corpus
from teachtorch.nn import functional as F

from _report import default_figure, save_curves


class CausalSelfAttention(nn.Module):
    """Every position attends to itself and the positions before it (is_causal=True), in `heads` heads."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)        # queries, keys and values in one matmul
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, time_, dim = x.shape
        q, k, v = self.qkv(x).split(dim, dim=2)
        # (B, T, dim) -> (B, heads, T, dim / heads): a view, then a transpose (no copy)
        q, k, v = (t.view(batch, time_, self.heads, dim // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(batch, time_, dim))


class CharModel(nn.Module):
    def __init__(self, vocab_size, block, dim=64, heads=4):
        super().__init__()
        self.block = block
        self.token = nn.Embedding(vocab_size, dim)
        self.position = nn.Embedding(block, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.attention = CausalSelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.norm_out = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, ids):                       # ids: (B, T) character numbers
        x = self.token(ids) + self.position(tt.arange(ids.shape[1], device=ids.device))
        x = x + self.attention(self.norm1(x))     # residual connections around both sublayers
        x = x + self.mlp(self.norm2(x))
        return self.head(self.norm_out(x))        # (B, T, vocab) scores for the next character


def batch(data, block, size, generator):
    """`size` random windows of `block` characters, and the same windows shifted by one (the targets)."""
    starts = tt.randint(0, len(data) - block - 1, (size,), generator=generator).tolist()
    x = tt.stack([data[s:s + block] for s in starts])
    y = tt.stack([data[s + 1:s + block + 1] for s in starts])
    return x, y


def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def unigram_baseline(train_text, val_text):
    """Validation loss (nats per character) of predicting the training text's character frequencies."""
    counts = Counter(train_text)
    total = sum(counts.values())
    return -sum(math.log(counts[ch] / total) for ch in val_text) / len(val_text)


def sample(model, vocab, prompt, length, generator, device="cpu"):
    """Extend `prompt` by `length` characters, each drawn from the model's predicted distribution (on the
    cpu, with the cpu `generator`, wherever the model runs)."""
    model.eval()
    ids = vocab.encode(prompt).tolist()
    with tt.no_grad():
        for _ in range(length):
            context = tt.tensor([ids[-model.block:]], device=device)
            probabilities = F.softmax(model(context)[0, -1], dim=0).cpu()
            ids.append(tt.multinomial(probabilities, 1, generator=generator).item())
    model.train()
    return vocab.decode(ids)


def in_notebook():
    """True inside a Jupyter kernel: there the live TrainMonitor takes the place of the tqdm bar."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--eval-every", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample-length", type=int, default=300)
    parser.add_argument("--figure", default=None, help="where to save the curves (default: next to the script)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, or auto (cuda when there is a GPU)")
    args = parser.parse_args(argv)
    if args.device == "auto":
        args.device = "cuda" if tt.cuda.is_available() else "cpu"

    tt.manual_seed(args.seed)
    generator = tt.Generator().manual_seed(args.seed)
    text = load_corpus()
    vocab = CharVocab(text)
    train_text, val_text = split_corpus(text, val_fraction=0.1)
    train_data, val_data = vocab.encode(train_text), vocab.encode(val_text)
    baseline = unigram_baseline(train_text, val_text)
    # a fixed set of validation windows, so that every evaluation measures the same thing
    val_batches = [tuple(t.to(args.device) for t in batch(val_data, args.block, args.batch_size,
                                                          tt.Generator().manual_seed(i))) for i in range(8)]

    model = CharModel(len(vocab), args.block).to(args.device)
    optimizer = tt.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)

    def validation_loss():
        model.eval()
        with tt.no_grad():
            value = sum(loss_of(model, x, y).item() for x, y in val_batches) / len(val_batches)
        model.train()
        return value

    monitor = None
    if in_notebook() and not args.quiet:
        from teachtorch.explorer import TrainMonitor      # the notebook widget (pip install 'teachtorch[lab]')
        monitor = TrainMonitor(model, layer="mlp.1", title=f"char attention (unigram baseline {baseline:.2f} nats)")

    losses, val_losses = [], [(0, validation_loss())]
    if monitor is not None:
        monitor.log(0, val_loss=val_losses[0][1])         # "val_loss" is drawn on the axes of "loss"
    start = time.perf_counter()
    bar = tqdm(range(1, args.steps + 1), desc="char attention", disable=args.quiet or monitor is not None)
    for step in bar:
        x, y = batch(train_data, args.block, args.batch_size, generator)
        loss = loss_of(model, x.to(args.device), y.to(args.device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if monitor is not None:
            monitor.log(step, loss=losses[-1])
        if step % args.eval_every == 0 or step == args.steps:
            val_losses.append((step, validation_loss()))
            bar.set_postfix(loss=f"{losses[-1]:.3f}", val=f"{val_losses[-1][1]:.3f}")
            if monitor is not None:
                monitor.log(step, val_loss=val_losses[-1][1])
    seconds = time.perf_counter() - start

    text_out = sample(model, vocab, "The ", args.sample_length, tt.Generator().manual_seed(args.seed), args.device)
    if monitor is not None:
        monitor.samples(text=text_out)
        monitor.close()                                    # the notebook keeps the final picture
    figure = save_curves(args.figure or default_figure(__file__),
                         f"char model, causal self-attention (unigram baseline {baseline:.2f} nats)",
                         losses, val_losses, "validation loss (nats/char)")
    result = {"val_loss": val_losses[-1][1], "unigram_baseline": baseline, "initial_val_loss": val_losses[0][1],
              "seconds": seconds, "steps": args.steps, "sample": text_out, "figure": str(figure), "monitor": monitor}
    print(f"validation loss {result['val_loss']:.3f} nats/char (unigram baseline {baseline:.3f}) after "
          f"{args.steps} steps in {seconds:.1f} s on {args.device}; figure: {figure}\nsample:\n{text_out}")
    return result


if __name__ == "__main__":
    main()

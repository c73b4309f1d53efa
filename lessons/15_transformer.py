# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lesson 15: language model II, attention and a tiny transformer trained in class
#
# **You will learn**
# - how a position can read **all** the positions before it, with one matrix product: a lower-triangular
#   mask, a softmax, and weights that come from the data (**self-attention**);
# - why the scores are divided by $\sqrt{d}$, and which way round PyTorch's masks are;
# - what a transformer **block** adds around attention: several heads, LayerNorm, residual connections, an
#   MLP; and how to see that the model cannot peek at the next letter;
# - what a trained attention layer looks at, drawn as heatmaps.
#
# **You will build** `causal_mask(T)` and `attention(q, k, v, mask)`, checked against
# `F.scaled_dot_product_attention` and by `gradcheck`; then a 60K-parameter GPT that uses your `attention`,
# trained here on the names of lesson 14 to a lower validation loss than lesson 14's MLP.
#
# **Time:** about 75 minutes (plus the few minutes of training you choose). **You need:** lesson 14 (the
# names, the 27 tokens, the loss in nats), `nn.Module` and Adam (lesson 11), LayerNorm (lesson 10).
#
# Everything here is PyTorch's API with `teachtorch` in place of `torch`: `F.scaled_dot_product_attention`,
# `nn.LayerNorm`, `nn.Embedding`, `torch.autograd.gradcheck` mean the same there.

# %%
import collections
import math
import time

import matplotlib.pyplot as plt

import teachtorch as tt
import teachtorch.nn.functional as F
from teachtorch import nn
from teachtorch.datasets import names_split
from teachtorch.explorer import TraceView, TrainMonitor
from teachtorch.exercises import check, hint

# %% [markdown]
# ## 1. The names, one row each
#
# Lesson 14's data, the same split and the same 27 tokens (`.` = 0 marks the start and the end). Its MLP saw
# a fixed window of 3 letters. Here each name is one row: the input is `.` and the name, the target is the
# name and `.`, shifted by one, so **every position predicts the next letter** from all the letters before
# it. The longest name has 11 letters, so a row has $T = 12$ positions; shorter rows are padded, and their
# padded targets are $-1$, which `F.cross_entropy(..., ignore_index=-1)` skips. The predictions are then
# exactly lesson 14's: each letter of each name and its end, 3,640 of them in the validation names.

# %%
train_words, val_words, test_words = names_split(seed=42)
itos = ["."] + [chr(ord("a") + i) for i in range(26)]
stoi = {c: i for i, c in enumerate(itos)}
T = 12


def encode(words):
    """(X, Y): int64 (len(words), T); X = '.' + name (padded with '.'), Y = name + '.' (padded with -1)."""
    xs, ys = [], []
    for w in words:
        ids = [0] + [stoi[c] for c in w] + [0]
        xs.append(ids[:-1] + [0] * (T + 1 - len(ids)))
        ys.append(ids[1:] + [-1] * (T + 1 - len(ids)))
    return tt.tensor(xs), tt.tensor(ys)


Xtr, Ytr = encode(train_words)
Xva, Yva = encode(val_words)
print(tuple(Xtr.shape), tuple(Xva.shape), "predictions in val:", int((Yva >= 0).sum()))
print("x:", "".join(itos[i] for i in Xtr[0].tolist()), "  y:", Ytr[0].tolist())

# %% [markdown]
# ## 2. Every position averages the ones before it
#
# The simplest way for position $i$ to use letters $0..i$ is their **average**. Karpathy's "mathematical
# trick": one matrix product does it for all positions at once. Start from scores of 0, put $-\infty$ where
# $j > i$ (the future), and take a softmax along each row: $e^{-\infty} = 0$, so row $i$ gets weights
# $\frac{1}{i+1}$ on columns $0..i$. Then `weights @ x` is the running mean of the rows of `x`.

# %%
n = 4
lower = tt.tril(tt.ones(n, n))                                  # 1 on and below the diagonal
weights = tt.zeros(n, n).masked_fill(lower == 0, float("-inf")).softmax(dim=-1)
print(weights)
x = tt.tensor([[1., 0.], [2., 0.], [3., 6.], [4., 2.]])
print(weights @ x, "\n", x.cumsum(0) / tt.arange(1., n + 1).view(n, 1), "(the running means)")

# %% [markdown]
# **Attention** keeps the mask and the softmax but takes the scores from the data. Each position makes a
# **query** $q_i$ (what it looks for), a **key** $k_j$ (what it holds) and a **value** $v_j$ (what it gives),
# each a vector of $d$ numbers made by a linear layer. Position $i$ scores position $j$ by $q_i \cdot k_j$,
# so the weights are no longer uniform:
#
# $$\text{attention}(Q, K, V) = \text{softmax}\Big(\frac{Q K^\top}{\sqrt{d}} + M\Big)\, V ,
# \qquad M_{ij} = \begin{cases} 0 & \text{if } i \text{ may look at } j \\ -\infty & \text{if not} \end{cases}$$
#
# with the softmax along each row (over the keys). $Q$ is $(T_q, d)$, $K$ is $(T_k, d)$, $V$ is
# $(T_k, d_v)$, and the result $(T_q, d_v)$: row $i$ is a weighted average of the values.
#
# ### Exercise 1: the causal mask
#
# PyTorch's `F.scaled_dot_product_attention` takes a **bool** `attn_mask` with True where the pair **takes
# part** (query $i$ may look at key $j$). Write `causal_mask(T)`: the $(T, T)$ bool tensor that lets position
# $i$ see positions $0..i$, itself included. The check wants exactly that: dtype `bool`, shape, every value.
# (Careful: `nn.MultiheadAttention` and `nn.Transformer` use the opposite convention, True = masked **out**,
# and `nn.Transformer.generate_square_subsequent_mask(T)` is a float mask of 0 and $-\infty$, added to the
# scores. Three conventions in one library; the bool one of `scaled_dot_product_attention` is ours.)

# %%
def causal_mask(T):
    ### BEGIN SOLUTION
    return tt.ones(T, T, dtype=tt.bool).tril()
    ### END SOLUTION


# %%
check("L15.causal_mask", causal_mask)

# %% [markdown]
# ## 3. Why divide by $\sqrt{d}$
#
# If the numbers of $q$ and $k$ have variance 1, then $q \cdot k$ is a sum of $d$ products of variance 1: its
# variance is $d$. With $d = 64$ the scores are spread over $\pm 16$ or so, and a softmax of such numbers is
# almost one-hot: each position would look at one other and learn nothing about the rest (and its gradient
# would be near 0). Dividing by $\sqrt{d}$ brings the variance back to 1:

# %%
tt.manual_seed(0)
for d in (4, 16, 64):
    q, k = tt.randn(8, d), tt.randn(8, d)
    raw = q @ k.T
    print(f"d={d:2d}  std of q.k {raw.std().item():5.2f}, divided by sqrt(d) {(raw / math.sqrt(d)).std().item():4.2f};"
          f"  largest softmax weight per row, on average: {raw.softmax(-1).max(-1).values.mean().item():.2f}"
          f" -> {(raw / math.sqrt(d)).softmax(-1).max(-1).values.mean().item():.2f}")

# %% [markdown]
# ### Exercise 2: attention
#
# Write `attention(q, k, v, mask=None)` for any leading dims (a batch, heads): `q` $(\dots, T_q, d)$, `k`
# $(\dots, T_k, d)$, `v` $(\dots, T_k, d_v)$, and `mask` None or a bool $(T_q, T_k)$ as in exercise 1. Return
# the formula above. Use teachtorch ops only (`@`, `transpose`, `masked_fill`, `softmax`): the check compares
# your output with `F.scaled_dot_product_attention` on random shapes (with `attn_mask=mask`, or
# `is_causal=True`), and also runs `gradcheck` on the small cases, because the model below trains **through
# your function**: its gradients must be right too.
# Stuck? `hint("L15.attention")` gives a hint; call it again for the next one:

# %%
hint("L15.attention")

# %%
def attention(q, k, v, mask=None):
    ### BEGIN SOLUTION
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(dim=-1) @ v
    ### END SOLUTION


# %%
check("L15.attention", attention)

# %% [markdown]
# What the check's `gradcheck` does, by hand: it nudges every number of `q`, `k` and `v` by $\pm 10^{-6}$,
# measures the change of the output (in float64), and compares it with what backward says. Here on one
# small causal case:

# %%
q, k, v = (tt.randn(2, 4, 3, dtype=tt.float64, requires_grad=True) for _ in range(3))
try:
    print("gradcheck:", tt.autograd.gradcheck(lambda q, k, v: attention(q, k, v, causal_mask(4)), (q, k, v)))
    print("same as F.scaled_dot_product_attention:",
          tt.allclose(attention(q, k, v, causal_mask(4)), F.scaled_dot_product_attention(q, k, v, is_causal=True)))
except NotImplementedError:
    print("(write causal_mask and attention in exercises 1 and 2 first)")

# %% [markdown]
# ## 4. A tiny GPT
#
# The model below is Karpathy's nanoGPT at a small size (makemore's transformer is the same design):
#
# - **embeddings**: a token embedding (27 × 48) and a **position** embedding (12 × 48), added. Attention
#   itself does not know the order of the positions (it is a weighted average); the position embedding
#   tells it.
# - **multi-head attention**: one linear layer makes $q, k, v$ for 4 heads of 12 numbers each; each head
#   attends on its own (the heads are one more batch dim for your `attention`), the heads are put side by
#   side again and one more linear layer mixes them. Different heads can look for different things.
# - **a block** = attention, then a small MLP (48 → 192 → 48, GELU) applied to each position alone. Each
#   is wrapped as `x = x + f(LayerNorm(x))`: the **residual** connection lets the gradient flow straight
#   through the sum to the first layers, and the **LayerNorm** before each part (pre-norm, as GPT-2) keeps
#   the numbers entering it at mean 0 and variance 1 per position.
# - two blocks, a final LayerNorm, and a linear layer to 27 logits per position. Dropout (20% of the
#   numbers zeroed in training) keeps 60K parameters from memorising 4,130 names.
#
# The model calls your `causal_mask` and `attention` if they give the library's answer, and otherwise
# `nn.Transformer.generate_square_subsequent_mask(T) == 0` and `F.scaled_dot_product_attention`, and says
# which it uses.

# %%
def pick(yours, library, *args):
    """`yours` if it gives `library`'s answer on `args`, else `library` (the student notebook's stubs)."""
    try:
        return yours if tt.allclose(yours(*args).float(), library(*args).float(), atol=1e-5) else library
    except NotImplementedError:
        return library


def library_mask(T):
    return nn.Transformer.generate_square_subsequent_mask(T) == 0       # float 0 / -inf -> True where allowed


def library_attention(q, k, v, mask=None):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


mask_fn = pick(causal_mask, library_mask, T)
attend = pick(attention, library_attention, *(tt.randn(2, 4, T, 12) for _ in range(3)), library_mask(T))
MASK = mask_fn(T)
print("the model uses", "your" if mask_fn is causal_mask else "the library's", "causal mask and",
      "your attention" if attend is attention else "F.scaled_dot_product_attention")

# %%
class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)        # q, k and v of every head, in one matmul
        self.proj = nn.Linear(n_embd, n_embd)
        self.drop = nn.Dropout(dropout)
        self.keep_weights, self.weights = False, None   # for section 6: keep the (B, heads, T, T) weights

    def forward(self, x):
        B, T, C = x.shape
        qkv = self.qkv(x).view(B, T, 3, self.n_head, C // self.n_head).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)                         # each (B, heads, T, head size)
        y = attend(q, k, v, MASK[:T, :T])
        if self.keep_weights:                           # attention applied to the identity: the weights
            self.weights = attend(q, k, tt.eye(T).expand(B, self.n_head, T, T), MASK[:T, :T]).detach()
        y = y.transpose(1, 2).reshape(B, T, C)          # the heads side by side again
        return self.drop(self.proj(y))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, dropout)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd),
                                 nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))                  # positions talk to each other
        return x + self.mlp(self.ln2(x))                # each position thinks on its own


class TinyGPT(nn.Module):
    def __init__(self, vocab=27, block_size=T, n_embd=48, n_head=4, n_layer=2, dropout=0.2):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, n_embd), nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head, dropout) for _ in range(n_layer)])
        self.ln = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab)

    def forward(self, idx):                             # idx (B, T) int64 -> logits (B, T, vocab)
        x = self.tok(idx) + self.pos(tt.arange(idx.shape[1]))
        return self.head(self.ln(self.blocks(x)))


tt.manual_seed(0)
model = TinyGPT()
print(f"{sum(p.numel() for p in model.parameters()):,} parameters;",
      {name: sum(p.numel() for p in m.parameters()) for name, m in model.named_children()})

# %% [markdown]
# **It cannot peek.** Change the 6th letter of a name: the logits of positions 0 to 4 must not move (they
# were computed from letters 0 to 4 only), and those from position 5 on do. This is the mask at work through
# two blocks; without it the model would learn to copy the next letter and be useless for writing names.

# %%
model.eval()
a = Xtr[:1].clone()
b = a.clone()
b[0, 5] = (b[0, 5] + 1) % 27
with tt.no_grad():
    moved = (model(a) - model(b)).abs().amax(dim=-1)[0]
model.train()
print("largest change of the logits at each position:", [f"{m:.0e}" for m in moved.tolist()])

# %% [markdown]
# ## 5. Training it, here
#
# `train` below is lesson 14's loop for a sequence model: batches of 32 names, AdamW, the cross-entropy over
# every position that has a target. The learning rate follows a cosine from 3e-3 down to 3e-4 over the run
# (the run's length is whichever of `max_steps` and `time_budget_s` comes first), so a run of any length ends
# with small steps. It prints a line every 200 steps, logs the loss and the validation loss to a
# `TrainMonitor`, and shows a few names the model makes up.
#
# One thing for speed: the matrices here are tiny (12 × 12 per head), and the BLAS that NumPy calls splits
# each product over threads. On this 2-core machine (shared with other jobs) that made a step 2.5 to 4.5 times
# **slower**: 60 to 200 ms a step against 23 to 46 ms with one thread. So training runs with one thread,
# `tt.set_num_threads(1)`, as `torch.set_num_threads(1)` would in PyTorch (teachtorch's sets the BLAS
# library's threads: `teachtorch/backends/threads.py`). It is lesson 13's overhead regime: sharing out the
# work costs more than the work.
#
# **How long:** the default 25 seconds made 500 to 1,000 steps here (25 to 50 ms each, teachtorch on NumPy,
# depending on the machine's load) and reached a validation loss of 1.98 to 2.04 (the run below prints its
# own). Lesson 14's MLP reached about 2.07 in class (and 1.98 with 20,000 steps). **In class, set
# `time_budget_s=180`**: three minutes, 4,600 steps, reached 1.92 here. (makemore's transformer, 200K
# parameters, is reported at about 1.92 too, but on its own list of names, 6 times larger: not comparable
# one to one.)

# %%
def val_loss(model):
    model.eval()
    with tt.no_grad():
        loss = F.cross_entropy(model(Xva).view(-1, 27), Yva.view(-1), ignore_index=-1).item()
    model.train()
    return loss


def generate(model, count, generator):
    """`count` names sampled from the model, a letter at a time, each from all the letters before it."""
    model.eval()
    idx = tt.zeros(count, 1, dtype=tt.int64)           # every name starts with '.'
    with tt.no_grad():
        for _ in range(T):
            probs = model(idx)[:, -1].softmax(dim=-1)   # the last position's next-letter distribution
            idx = tt.cat([idx, tt.multinomial(probs, 1, generator=generator)], dim=1)
    model.train()
    return ["".join(itos[i] for i in row).split(".")[0] for row in idx[:, 1:].tolist()]


def train(model, max_steps=20_000, time_budget_s=25.0, lr=3e-3, batch_size=32, monitor=None, seed=0):
    """AdamW on the next-letter cross-entropy; returns (steps, seconds)."""
    optimizer = tt.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    g, samples = tt.Generator().manual_seed(seed), tt.Generator().manual_seed(seed + 1)
    step, start = 0, time.perf_counter()
    while True:
        progress = max(step / max_steps, (time.perf_counter() - start) / time_budget_s)
        if progress >= 1:
            break
        for group in optimizer.param_groups:            # cosine from lr down to lr / 10
            group["lr"] = lr * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))
        ix = tt.randint(0, len(Xtr), (batch_size,), generator=g)
        loss = F.cross_entropy(model(Xtr[ix]).view(-1, 27), Ytr[ix].view(-1), ignore_index=-1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if monitor is not None:
            monitor.log(step, loss=loss)
        if step % 200 == 0:
            v = val_loss(model)
            print(f"step {step:5d}  batch loss {loss.item():.3f}  val {v:.4f}  {time.perf_counter() - start:5.1f} s")
            if monitor is not None:
                monitor.log(step, val_loss=v)
                monitor.samples(text=" ".join(generate(model, 12, samples)))
    return step, time.perf_counter() - start


# %%
print(f"before training: val {val_loss(model):.3f} (guessing uniformly: log 27 = {math.log(27):.3f})")
with TrainMonitor(model, layer="blocks.1.attn", title="tiny GPT on the names") as monitor:
    threads = tt.get_num_threads()
    tt.set_num_threads(1)                               # as torch.set_num_threads(1): see above
    try:
        steps, seconds = train(model, max_steps=20_000, time_budget_s=25, monitor=monitor)
    finally:
        tt.set_num_threads(threads)
gpt_val = val_loss(model)
print(f"{steps} steps in {seconds:.1f} s ({seconds / steps * 1e3:.0f} ms a step): val {gpt_val:.4f} "
      f"(lesson 14's MLP: about 2.07; the bigram table: 2.34)")
print("made up:", " ".join(generate(model, 20, tt.Generator().manual_seed(7))))

# %% [markdown]
# ## 6. What it looks at
#
# Each head of each block has its own $(T, T)$ weights for a name: row $i$ is how much position $i$ takes
# from each position $j \le i$ (the row sums to 1; above the diagonal is 0, the mask). The model keeps them
# when asked (`keep_weights`: attention applied to an identity matrix as values gives back the weights).
# Below, the four heads of the second block on a validation name. Rows are the position that reads; columns
# the letter it reads from; the labels are the input letters (`.` is the start).

# %%
def draw_attention(model, word, block=1):
    x, _ = encode([word])
    layer = model.blocks[block].attn
    layer.keep_weights = True
    model.eval()
    with tt.no_grad():
        model(x)
    model.train()
    layer.keep_weights = False
    n = len(word) + 1                                   # '.' and the letters: the positions of this name
    letters = ["."] + list(word)
    fig, axes = plt.subplots(1, layer.n_head, figsize=(3.2 * layer.n_head, 3.4))
    for h, ax in enumerate(axes):
        ax.imshow(layer.weights[0, h, :n, :n].numpy(), cmap="Blues", vmin=0, vmax=1)
        ax.set_xticks(range(n), letters)
        ax.set_yticks(range(n), letters)
        ax.set_title(f"block {block}, head {h}", fontsize=10)
    axes[0].set_ylabel("position reading")
    fig.supxlabel("position read from")
    plt.tight_layout()
    plt.show()
    return layer.weights[0, :, :n, :n]


weights = draw_attention(model, val_words[0])
print(val_words[0], ": every row sums to 1:", tt.allclose(weights.sum(-1), tt.ones(weights.shape[:2])))

# %% [markdown]
# Typical patterns (they vary from run to run): a head that reads mostly the **previous** letter (a bigram
# inside the transformer), one that spreads over the whole name, one that keeps looking at the start `.` (a
# "resting place" when there is nothing better to read: the weights must add up to 1 somewhere).
#
# **The ops of one block.** A dispatch trace (lessons 5 and 13) of one block's forward on a batch of 32,
# counted by op: the linear layers are `matmul` and `add`, LayerNorm is one op, and the attention is the
# ops your function calls (or one fused op, when it is `F.scaled_dot_product_attention`).

# %%
x = model.tok(Xtr[:32]) + model.pos(tt.arange(T))
model.eval()
with tt.no_grad(), tt.dispatch.trace() as t:
    model.blocks[0](x)
model.train()
print(len([e for e in t.events if e.parent is None]), "calls from the block's code:",
      dict(collections.Counter(e.aten_name for e in t.events if e.parent is None).most_common()))
TraceView(t, title="one transformer block, forward (batch 32, T = 12)")

# %% [markdown]
# **Where this is in PyTorch**
# - attention: `F.scaled_dot_product_attention`, documented in `torch/nn/functional.py` and written in C++,
#   `aten/src/ATen/native/transformers/attention.cpp` (the choice of kernel in
#   `aten/src/ATen/native/transformers/sdp_utils_cpp.cpp`: flash attention on the CPU, flash /
#   memory-efficient / cuDNN on a GPU, else `_scaled_dot_product_attention_math`, your formula); teachtorch's
#   is `teachtorch/nn/functional/attention.py`, with the fused CPU op in `teachtorch/ops/attention.py` and
#   its kernel in `teachtorch/kernels/attention.py`;
# - the layers: `torch/nn/modules/activation.py` (`MultiheadAttention`), `torch/nn/modules/transformer.py`
#   (`TransformerEncoderLayer`, with `norm_first=True` for pre-norm, and `Transformer`),
#   `torch/nn/modules/normalization.py` (`LayerNorm`), `torch/nn/modules/sparse.py` (`Embedding`);
#   teachtorch's: `teachtorch/nn/modules/attention.py`, `teachtorch/nn/modules/transformer.py`,
#   `teachtorch/nn/modules/normalization.py`, `teachtorch/nn/modules/sparse.py`;
# - gradcheck: `torch/autograd/gradcheck.py`; teachtorch's `teachtorch/autograd/gradcheck.py`.
#
# ## Recap
#
# - Masked softmax weights times the values: with equal scores that is a running mean; with scores
#   $q_i \cdot k_j / \sqrt{d}$ it is attention, each position choosing what to read from the positions before it.
# - The $\sqrt{d}$ keeps the scores at variance 1, so the softmax is not one-hot from the start.
# - `F.scaled_dot_product_attention`'s bool mask: True = takes part (the lower triangle for a causal model);
#   `nn.MultiheadAttention`'s: True = masked out. A float mask is added to the scores.
# - A block is `x + attn(ln1(x))`, then `x + mlp(ln2(x))`: residuals and pre-norm LayerNorm. With position
#   embeddings and two blocks, 60K parameters beat lesson 14's MLP in 25 seconds here (about 2.0 against
#   2.07) and reach 1.92 in three minutes.
# - A change at position $i$ moves only the logits from position $i$ on: the model cannot peek.
#
# **Next:** lesson 16 adds an op to the library from outside, with its kernel, meta function, derivative
# and tests; a fused attention op is the classic example of why one would.

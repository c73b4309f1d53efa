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
# # Lesson 14: a language model of names, from a table of counts to an MLP
#
# **You will learn**
# - what a character-level language model is: a probability for the next character given the ones
#   before it, and how to **sample** new names from it;
# - how to score such a model: the average **negative log-likelihood** (NLL) of held-out names, in nats;
# - that a table of bigram counts and a one-layer neural net are **the same model**: with weights
#   $W = \log(N + 1)$ the net gives exactly the table's loss, and gradient descent finds its way there;
# - why `F.cross_entropy` is one op and not `softmax`, `log` and indexing;
# - how an MLP with **embeddings** (Bengio et al. 2003, Karpathy's makemore part 2) looks 3 characters back
#   and beats the table, and what the learnt embeddings look like.
#
# **You will build** `bigram_counts` (the table), `nll` (the score) and `build_dataset` (contexts and
# targets for the MLP); you will train an MLP of 11,897 parameters to a validation loss under 2.10 nats
# (the bigram table: 2.34) in 5,000 steps, with a live monitor that shows the names it makes up.
#
# **Time:** about 60 minutes. **You need:** `nn.Module`, `nn.Sequential` and optimizers (lesson 11), the
# training loop of lesson 12, `cross_entropy` (lesson 10).
#
# Everything here is PyTorch's API with `teachtorch` in place of `torch`: `multinomial`, `Generator`,
# `F.one_hot`, `F.cross_entropy`, `nn.Embedding` mean the same there. The lesson follows Karpathy's
# makemore (parts 1 and 2) on a names list that ships with teachtorch, so nothing is downloaded.

# %%
import math
import time

import matplotlib.pyplot as plt
import numpy as np

import teachtorch as tt
import teachtorch.nn.functional as F
from teachtorch import nn
from teachtorch.datasets import load_names, names_split
from teachtorch.explorer import TraceView, TrainMonitor
from teachtorch.exercises import check, hint
from teachtorch.exercises.lesson14 import count_table, dataset_arrays    # the library's answers, for fallbacks

# %% [markdown]
# ## 1. The names, and the 27 tokens
#
# `load_names()` gives 5,163 first names from the 1990 U.S. Census (`teachtorch/datasets/names.py`; makemore
# uses 32,033 names from Social Security records, so its numbers are a little different). `names_split(42)`
# shuffles them with a seed and cuts them 80/10/10 into train / validation / test, as makemore does: we fit on
# train, choose settings on validation, and look at test once at the end.
#
# The model reads characters as numbers. There are 26 letters and one more token, `'.'`, that marks both the
# **start** and the **end** of a name: number 0, the letters 1 to 26 (`stoi`: string to index; `itos` back).
# A name of $k$ letters read as `'.' + name + '.'` holds $k + 1$ **bigrams**, pairs (this character, the next).

# %%
words = load_names()
train_words, val_words, test_words = names_split(seed=42)
print(len(words), "names:", words[:6], "...;", len(train_words), len(val_words), len(test_words), "in the split")
print("lengths", min(map(len, words)), "to", max(map(len, words)), "letters")

chars = sorted(set("".join(words)))
stoi = {ch: i + 1 for i, ch in enumerate(chars)}
stoi["."] = 0
itos = {i: ch for ch, i in stoi.items()}
print(len(stoi), "tokens:", "".join(itos[i] for i in range(len(itos))))
chs = ["."] + list("emma") + ["."]
print("the bigrams of emma:", list(zip(chs, chs[1:])))

# %% [markdown]
# ## 2. Counting
#
# The simplest model: predict the next character from the **one** before it, by counting. $N[a, b]$ is how
# many times character $b$ follows character $a$ in the training names. Row 0 ($a$ = `'.'`) counts how names
# start, column 0 how they end.
#
# ### Exercise 1: the table of counts
#
# Write `bigram_counts(words, stoi)`: a `(27, 27)` **int64** tensor with $N[\text{stoi}[a], \text{stoi}[b]]$
# = how many times the bigram $(a, b)$ occurs in the words, each word read as `'.' + word + '.'`. The check
# is exact, dtype included: a count is a whole number (`tt.zeros` makes float32 unless you ask).

# %%
def bigram_counts(words, stoi):
    ### BEGIN SOLUTION
    N = tt.zeros(len(stoi), len(stoi), dtype=tt.int64)
    for w in words:
        chars = ["."] + list(w) + ["."]
        for a, b in zip(chars, chars[1:]):
            N[stoi[a], stoi[b]] += 1
    return N
    ### END SOLUTION


# %%
check("L14.bigram_counts", bigram_counts)

# %% [markdown]
# The table of the training names (your function's, or the library's `count_table` until yours runs). Each
# cell shows the bigram and its count; the darker, the more frequent. Look at row `.` (how names start) and
# column `.` (how they end: many names end in `a`, `e`, `n`, `y`):

# %%
try:
    N = bigram_counts(train_words, stoi)
except NotImplementedError:
    N = count_table(train_words, stoi)
    print("(bigram_counts is not written yet: this is the library's table)")
print(tuple(N.shape), N.dtype, "total", N.sum().item(), "bigrams; never seen:", (N == 0).sum().item(), "of 729")

fig, ax = plt.subplots(figsize=(11, 11))
ax.imshow(N.numpy(), cmap="Blues")
for i in range(27):
    for j in range(27):
        colour = "white" if N[i, j].item() > 300 else "black"
        ax.text(j, i, itos[i] + itos[j], ha="center", va="bottom", fontsize=6.5, color=colour)
        ax.text(j, i, N[i, j].item(), ha="center", va="top", fontsize=6.5, color=colour)
ax.axis("off")
plt.show()

# %% [markdown]
# ## 3. Probabilities, sampling, and the score
#
# Dividing each row by its sum gives $P[a, b]$, the probability that $b$ comes next after $a$. One problem:
# 287 of the 729 bigrams never occur in the training names, so their probability would be 0, and a name
# that contains one would be "impossible". **Add-one smoothing** counts every bigram once more:
#
# $$P[a, b] = \frac{N[a, b] + 1}{\sum_{c} (N[a, c] + 1)} .$$
#
# To **sample** a name: start at `'.'`, draw the next character from the row $P[\text{current}]$, move to it,
# and stop when `'.'` comes out. `tt.multinomial(p, 1, generator=g)` draws an index with probabilities $p$,
# as `torch.multinomial`; a seeded `tt.Generator` makes the draws the same on every run (teachtorch's
# stream of random numbers is not PyTorch's: the same seed gives other names there).

# %%
P = (N + 1).double()
P = P / P.sum(1, keepdim=True)
print("each row sums to 1:", tt.allclose(P.sum(1), tt.ones(27, dtype=tt.float64)))


def sample_bigram(P, generator):
    out, ix = [], 0
    while True:
        ix = tt.multinomial(P[ix], num_samples=1, replacement=True, generator=generator).item()
        if ix == 0:
            return "".join(out)
        out.append(itos[ix])


g = tt.Generator().manual_seed(2147483647)
print("bigram model:", [sample_bigram(P, g) for _ in range(12)])
print("uniform:     ", [sample_bigram(tt.full((27, 27), 1 / 27, dtype=tt.float64), g) for _ in range(4)])

# %% [markdown]
# Better than uniform noise, but still not names. How much better, as a number? A model gives each training
# bigram a probability; the **likelihood** of the data is their product, and a better model makes it larger.
# The product of thousands of numbers below 1 underflows, so take its log (a sum), negate it (so that lower
# is better, as a loss) and average over the $n$ bigrams:
#
# $$\text{NLL} = -\frac{1}{n} \sum_{i=1}^{n} \log P[a_i, b_i] .$$
#
# A model that knows nothing ($P = 1/27$ everywhere) scores $\log 27 = 3.296$ nats; a perfect one, 0. This
# is the loss every language model reports, and makemore's too.
#
# ### Exercise 2: the average negative log-likelihood
#
# Write `nll(P, words, stoi)`: the NLL of **all** the bigrams of the words (each read as `'.' + word + '.'`)
# under the table `P`, one mean over all the bigrams. Return a number (or a 0-d tensor). The check compares
# it with NumPy's answer to 9 digits, on random tables `P` that are not symmetric.

# %%
def nll(P, words, stoi):
    ### BEGIN SOLUTION
    total, n = 0.0, 0
    for w in words:
        chars = ["."] + list(w) + ["."]
        for a, b in zip(chars, chars[1:]):
            total -= math.log(P[stoi[a], stoi[b]].item())
            n += 1
    return total / n
    ### END SOLUTION


# %%
check("L14.nll", nll)

# %% [markdown]
# The bigram table's score, on the names it was counted from and on the validation names it never saw. The
# same numbers come from the whole data at once, as tensors: `xs` and `ys` hold the first and second
# character of every training bigram, and `P[xs, ys]` picks their probabilities in one indexing op. Without
# smoothing, three validation bigrams have probability 0, and one such bigram makes the loss infinite:

# %%
def bigram_tensors(words):
    xs = [stoi[a] for w in words for a in "." + w]
    ys = [stoi[b] for w in words for b in w + "."]
    return tt.tensor(xs), tt.tensor(ys)


xs, ys = bigram_tensors(train_words)
xs_val, ys_val = bigram_tensors(val_words)
table_train = -P[xs, ys].log().mean().item()
table_val = -P[xs_val, ys_val].log().mean().item()
try:
    print(f"your nll:   train {nll(P, train_words, stoi):.4f}  val {nll(P, val_words, stoi):.4f}")
except NotImplementedError:
    print("(write nll in exercise 2 to see your numbers here)")
print(f"as tensors: train {table_train:.4f}  val {table_val:.4f}  ({len(xs)} and {len(xs_val)} bigrams)")
P_raw = N.double() / N.sum(1, keepdim=True)
print("without smoothing, val:", -P_raw[xs_val, ys_val].log().mean().item())

# %% [markdown]
# ## 4. The same model as a neural net
#
# Now the same model, learnt instead of counted. Feed character $a$ in as a **one-hot** vector (27 numbers,
# a 1 at position $a$), multiply by a $(27, 27)$ weight matrix $W$: the result is row $a$ of $W$, 27
# **logits**. Softmax turns them into probabilities: exponentiate (the logits are read as **log-counts**)
# and divide by the row's sum. Compare with the table: if $W = \log(N + 1)$, then $e^{W}$ is $N + 1$ and the
# softmax is exactly the smoothed table $P$. The net **is** the table; the loss must then be the table's
# loss, and the notebook asserts it:

# %%
x_onehot = F.one_hot(xs, num_classes=27).double()          # (28892, 27): one row per training bigram
W_table = tt.log((N + 1).double())
net_train = F.cross_entropy(x_onehot @ W_table, ys).item()
print(f"net with W = log(N + 1): {net_train!r}\ntable:                   {table_train!r}")
print("equal to the last bit:", net_train == table_train)
assert abs(net_train - table_train) < 1e-12, "the net with log-count weights must be the count table"

# %% [markdown]
# Here they are equal to the last bit. The assert still allows a difference of $10^{-12}$: the two are
# different float64 computations of one number ($\log$ of a quotient against a difference of $\log$s, sums
# taken in another order), and on another machine they may round differently in the last bits.
#
# **Why `F.cross_entropy`.** The loss above, written out, is "softmax, take the probability of the right
# character, log, negate, mean". `F.cross_entropy(logits, y)` computes the same number as one op, as
# `log_softmax` then `nll_loss` (printed below from the dispatch trace: the same ATen ops PyTorch calls). `log_softmax` computes
# $z_b - \max z - \log \sum_c e^{z_c - \max z}$: nothing is exponentiated that could overflow, and no
# probability is rounded to 0 before its log is taken. The written-out version overflows at a logit of 100:

# %%
logits, target = tt.randn(5, 27), tt.tensor([1, 5, 0, 26, 3])
by_hand = -(logits.exp() / logits.exp().sum(1, keepdim=True))[tt.arange(5), target].log().mean()
by_log_softmax = -F.log_softmax(logits, dim=1)[tt.arange(5), target].mean()
with tt.no_grad(), tt.dispatch.trace() as t:
    fused = F.cross_entropy(logits, target)
print(by_hand.item(), by_log_softmax.item(), fused.item())
print("the ops inside F.cross_entropy, in order:", " -> ".join(dict.fromkeys(e.op for e in t.events)))
big = tt.tensor([[100.0, 0.0]])
print("logit 100, by hand:", -(big.exp() / big.exp().sum(1, keepdim=True))[0, 1].log().item(),
      "  cross_entropy:", F.cross_entropy(big, tt.tensor([1])).item())
TraceView(t, title="F.cross_entropy = log_softmax, then nll_loss")

# %% [markdown]
# Gradient descent from random weights finds the table by itself. The whole training set is one batch here
# (28,892 rows), with a large step (50) because the gradient of a mean over so many rows is small. Knobs:
# `max_steps` and `time_budget_s`; 60 steps take 2 to 5 s here (each step multiplies the whole
# (28892, 27) one-hot matrix, forward and backward).

# %%
max_steps, time_budget_s, lr = 60, 10.0, 50.0
W = tt.randn(27, 27, generator=tt.Generator().manual_seed(2147483647), requires_grad=True)
x_onehot = x_onehot.float()
start = time.perf_counter()
for step in range(1, max_steps + 1):
    loss = F.cross_entropy(x_onehot @ W, ys)
    W.grad = None
    loss.backward()
    with tt.no_grad():
        W -= lr * W.grad
    if step % 10 == 0 or step == 1:
        print(f"step {step:3d}  loss {loss.item():.4f}  {time.perf_counter() - start:4.1f} s")
    if time.perf_counter() - start > time_budget_s:
        break
print(f"the table: {table_train:.4f} (add-one smoothing), {-P_raw[xs, ys].log().mean().item():.4f} (none)")

# %% [markdown]
# The net's loss falls towards the table's. It only **approaches** it: gradient descent takes ever smaller
# steps near the minimum, and the minimum is not even the smoothed table. On the training names the best any
# bigram model can do is the **unsmoothed** table (2.3351, the maximum-likelihood answer), slightly below the
# smoothed one (2.3448); given enough steps the net would pass the smoothed table and head there. Smoothing's
# counterpart for a net is a **penalty** on the weights (makemore adds $0.01$ times the mean of $W^2$ to the
# loss): it pulls $W$ towards 0, towards equal logits, as adding counts pulls $P$ towards uniform.
#
# ## 5. An MLP that looks 3 characters back
#
# One character of context is too little: after `a` almost anything can come. Counting with 2 characters
# of context needs $27^2 = 729$ rows, with 3 it needs 19,683, and most of them would hold no counts at all. Bengio
# et al. (2003) learn instead: each character gets an **embedding**, a short vector of numbers
# (10 here) in a table $C$ of shape $(27, 10)$; the last `block_size` = 3 characters' embeddings are
# concatenated (30 numbers), go through a hidden layer of 200 tanh units and then a linear layer to 27
# logits. Characters that behave alike can get alike embeddings, so what the model learns about one
# transfers to the others.
#
# The data set: for each character of each training name (the closing `'.'` included), the 3 characters
# before it form the input and the character is the target. Before a name starts, the context is `'.'`.
# `emma` gives five rows: `...` $\to$ `e`, `..e` $\to$ `m`, `.em` $\to$ `m`, `emm` $\to$ `a`, `mma` $\to$ `.`.
#
# ### Exercise 3: contexts and targets
#
# Write `build_dataset(words, block_size, stoi)`: `(X, Y)` with `X` an int64 tensor `(n, block_size)` of
# contexts (the newest character last) and `Y` an int64 tensor `(n,)` of the characters that follow. The
# context starts from all `'.'` (0) at **every** word. Stuck? `hint("L14.build_dataset")` gives a hint; call it
# again for the next one:

# %%
hint("L14.build_dataset")

# %%
def build_dataset(words, block_size, stoi):
    ### BEGIN SOLUTION
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return tt.tensor(X), tt.tensor(Y)
    ### END SOLUTION


# %%
check("L14.build_dataset", build_dataset)

# %%
block_size = 3
try:
    (Xtr, Ytr), (Xva, Yva) = (build_dataset(w, block_size, stoi) for w in (train_words, val_words))
except NotImplementedError:
    (Xtr, Ytr), (Xva, Yva) = (dataset_arrays(w, block_size, stoi) for w in (train_words, val_words))
    print("(build_dataset is not written yet: these are the library's tensors)")
print("train", tuple(Xtr.shape), tuple(Ytr.shape), " val", tuple(Xva.shape), Xtr.dtype)
for x, y in zip(Xtr[:5].tolist(), Ytr[:5].tolist()):
    print("".join(itos[i] for i in x), "->", itos[y])

# %% [markdown]
# **An embedding is a lookup.** `C[X]` indexes the rows of $C$ with a whole int64 tensor at once: for
# `X` of shape $(n, 3)$ it gives $(n, 3, 10)$. It is the same as a one-hot matrix product (the bigram net of
# section 4 did exactly this, with one character and $C = W$), without making the one-hot matrix;
# `nn.Embedding(27, 10)` holds $C$ as its `weight` and does the lookup. `view(n, 30)` then concatenates the
# three embeddings of a row for free: the $(n, 3, 10)$ result is contiguous, so no copy is made (lesson 2).

# %%
C = tt.randn(27, 10)
emb = C[Xtr[:4]]
print(tuple(emb.shape), "same as one_hot @ C:", tt.allclose(emb, F.one_hot(Xtr[:4], 27).float() @ C),
      " same as F.embedding:", tt.equal(emb, F.embedding(Xtr[:4], C)))
print("view to (4, 30) shares the storage:",
      emb.view(4, 30).untyped_storage().data_ptr() == emb.untyped_storage().data_ptr())

# %% [markdown]
# ## 6. Training the MLP
#
# The model is `nn.Sequential`: `Embedding` $\to$ `Flatten` (the `view` above) $\to$ `Linear(30, 200)`
# $\to$ `Tanh` $\to$ `Linear(200, 27)`, 11,897 parameters, with PyTorch's default initialisation. The
# loop is makemore's: minibatches of 32 random rows, plain SGD, the learning rate cut tenfold for the last
# quarter of the steps. makemore part 2 takes 200,000 steps, at 0.1 then 0.01; with 40 times fewer we take
# larger ones, 0.2 then 0.02. Each step reports its loss to a `TrainMonitor`; every 500 steps the
# loss on all 3,640 validation rows, and every 1,000 steps a few names the model makes up (the samples
# panel). The histogram panels show the tanh layer's outputs: a pile-up at $\pm 1$ would mean saturated
# units with no gradient (makemore part 3).
#
# Knobs: `max_steps` (5,000) and `time_budget_s`. Here (a 2-core machine shared with other jobs) a step
# takes 1.3 to 2.4 ms, so 5,000 steps take 7 to 12 s and reach a validation loss of 2.070 (other seeds of the
# weights and batches: 2.074 to 2.080). The **target**: below 2.10 nats within 5,000 steps with seed 0 (4,000
# steps do not get there: 2.108). Training for longer (20,000 steps at 0.1, then 0.01) gets to about 1.98
# (measured with PyTorch).

# %%
def sample_mlp(model, count, generator, block_size=3):
    """`count` names drawn from the model, one character at a time."""
    names = []
    with tt.no_grad():
        for _ in range(count):
            context, out = [0] * block_size, []
            while len(out) < 20:
                probs = F.softmax(model(tt.tensor([context])), dim=1)
                ix = tt.multinomial(probs[0], num_samples=1, generator=generator).item()
                if ix == 0:
                    break
                out.append(itos[ix])
                context = context[1:] + [ix]
            names.append("".join(out))
    return names


def val_loss(model):
    with tt.no_grad():
        return F.cross_entropy(model(Xva), Yva).item()


def train_mlp(model, max_steps, time_budget_s=30.0, lr=0.2, batch_size=32, monitor=None, seed=0):
    """makemore's loop; returns (steps done, seconds)."""
    optimizer = tt.optim.SGD(model.parameters(), lr=lr)
    g = tt.Generator().manual_seed(seed)                 # the batches
    g_samples = tt.Generator().manual_seed(seed + 1)     # the monitor's sample names
    step, start = 0, time.perf_counter()
    while step < max_steps and time.perf_counter() - start < time_budget_s:
        step += 1
        if step == int(0.75 * max_steps):
            optimizer.param_groups[0]["lr"] = lr / 10
        ix = tt.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        loss = F.cross_entropy(model(Xtr[ix]), Ytr[ix])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if monitor is not None:
            monitor.log(step, loss=loss)
        if step % 500 == 0 or step == max_steps:
            v = val_loss(model)
            if monitor is not None:
                monitor.log(step, val_loss=v)
                if step % 1000 == 0:
                    monitor.samples(text=f"step {step}: " + "  ".join(sample_mlp(model, 8, g_samples)))
            if step % 1000 == 0:
                print(f"step {step:5d}  batch loss {loss.item():.3f}  val {v:.4f}  "
                      f"{time.perf_counter() - start:5.1f} s")
    return step, time.perf_counter() - start


# %%
tt.manual_seed(0)                                        # the initial weights
mlp = nn.Sequential(nn.Embedding(27, 10), nn.Flatten(), nn.Linear(block_size * 10, 200), nn.Tanh(),
                    nn.Linear(200, 27))
print(sum(p.numel() for p in mlp.parameters()), "parameters; loss before training",
      round(val_loss(mlp), 3), "(uniform guessing: log 27 =", round(math.log(27), 3), ")")
with TrainMonitor(mlp, layer="3", title="names MLP: 3 characters -> embeddings 10 -> 200 tanh -> 27") as mon:
    steps, seconds = train_mlp(mlp, max_steps=5000, time_budget_s=40, monitor=mon)
mlp_val = val_loss(mlp)
print(f"{steps} steps in {seconds:.1f} s ({seconds / steps * 1e3:.2f} ms a step): val {mlp_val:.4f} "
      f"(bigram table {table_val:.4f}); target below 2.10:", "reached" if mlp_val < 2.10 else "NOT reached")

# %% [markdown]
# ## 7. What the model learnt
#
# **Samples.** Twenty names from the trained MLP, and how many of them are real names of the list (a model
# that copied its training names would score well and invent nothing):

# %%
names = sample_mlp(mlp, 20, tt.Generator().manual_seed(2147483647))
known = set(words)
print("  ".join(n + ("*" if n in known else "") for n in names))
print(sum(n in known for n in names), "of 20 are in the list (marked *); the rest are new")

# %% [markdown]
# **The embeddings.** Each character is now a point in 10 dimensions. To draw them, project onto the two
# directions along which the 27 points spread most (their first two principal components, from the SVD of the
# centred table $C$; they hold about 40% of its spread, so this is a shadow, not the whole picture). makemore
# part 2 trains 2-D embeddings to draw them directly. Nobody told the model which letters are vowels, yet with
# seed 0 they all land in the same strip at the top, `a` beside `y` and `e` beside `o`: characters that are
# followed by alike characters get alike embeddings. Rare letters (`w`, `x`, `f`) end up far out.

# %%
C_trained = mlp[0].weight.detach().double()
centred = C_trained - C_trained.mean(0)
U, S, Vh = np.linalg.svd(centred.numpy(), full_matrices=False)     # NumPy's SVD: C is only 27 x 10
xy = centred.numpy() @ Vh[:2].T
print(f"the two directions hold {(S[:2] ** 2).sum() / (S ** 2).sum():.0%} of the spread")
fig, ax = plt.subplots(figsize=(6, 6))
for i in range(27):
    colour = "#c62828" if itos[i] in "aeiouy" else ("#2e7d32" if i == 0 else "#1565c0")
    ax.scatter(xy[i, 0], xy[i, 1], s=260, color=colour, alpha=0.25)
    ax.text(xy[i, 0], xy[i, 1], "'.'" if i == 0 else itos[i], ha="center", va="center", fontsize=12, color=colour)
ax.set_title("the learnt embeddings, projected to 2-D\n(red: vowels and y; green: '.')", fontsize=11)
ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# **Test, once.** The settings were chosen on validation; the test names give the number to report:

# %%
try:
    Xte, Yte = build_dataset(test_words, block_size, stoi)
except NotImplementedError:
    Xte, Yte = dataset_arrays(test_words, block_size, stoi)
with tt.no_grad():
    print(f"test loss {F.cross_entropy(mlp(Xte), Yte).item():.4f} (val {mlp_val:.4f})")

# %% [markdown]
# **Where this is in PyTorch**
# - sampling: `torch.multinomial` in `aten/src/ATen/native/Distributions.cpp`; teachtorch's `multinomial` in
#   `teachtorch/ops/random.py`, drawn in `teachtorch/kernels/random.py`;
# - one-hot and the embedding: `aten/src/ATen/native/Onehot.cpp`, `torch/nn/modules/sparse.py` (`Embedding`),
#   `embedding` in `torch/nn/functional.py` and `aten/src/ATen/native/Embedding.cpp` (its backward adds the
#   gradient rows of repeated indices); teachtorch's: `teachtorch/nn/functional/sparse.py`,
#   `teachtorch/nn/modules/sparse.py`, `teachtorch/kernels/embedding.py`;
# - the loss: `cross_entropy` in `torch/nn/functional.py`, then `aten/src/ATen/native/SoftMax.cpp`
#   (`log_softmax`) and `aten/src/ATen/native/LossNLL.cpp` (`nll_loss`); teachtorch's:
#   `teachtorch/nn/functional/loss.py`;
# - the data: makemore keeps its names in a text file next to `makemore.py`; teachtorch ships its list in
#   `teachtorch/datasets/names.py`.
#
# ## Recap
#
# - A language model gives the probability of the next token; sampling draws from it token by token
#   (`tt.multinomial` with a seeded `tt.Generator`) until the end token `'.'`.
# - Its score is the average negative log-likelihood, in nats: $\log 27 = 3.30$ for guessing, 2.34 for the
#   bigram table on validation, 2.07 for the MLP (test: 2.09).
# - A bigram table with add-one smoothing and a one-layer net with $W = \log(N + 1)$ are the same model: the
#   logits are log-counts, and the losses agree to 12 digits. Gradient descent approaches it; a weight
#   penalty plays the part of smoothing.
# - `F.cross_entropy` is `log_softmax` then `nll_loss`: one stable op, no overflow at large logits.
# - An embedding is a row lookup, `C[X]` (the same as one-hot times $C$); an MLP over 3 characters'
#   embeddings beats the table in 5,000 steps of 1.3 to 2.4 ms each, here.
#
# **Next:** lesson 15 replaces the fixed 3-character window by attention over the whole name: a tiny
# transformer.

"""Train a 64-128-10 MLP on the UCI handwritten digits (8x8 images, shipped with teachtorch), offline, in seconds.

    python examples/digits_mlp.py [--epochs 20] [--seed 0] [--figure path.png]

It is PyTorch code with `teachtorch` in place of `torch`: a Dataset, a DataLoader, an nn.Sequential, a loss,
an optimizer, and the usual loop. The split is a fixed, seeded 80/20 split of the 1,797 images (1,437 to
train on, 360 to test), so the accuracy printed at the end is comparable between runs and machines;
expect about 97-99%.
"""

import argparse
import time

from tqdm import tqdm

import teachtorch as tt
from teachtorch import nn
from teachtorch.datasets import digits_split
from teachtorch.utils.data import DataLoader

from _report import default_figure, save_curves


def build_model():
    return nn.Sequential(
        nn.Flatten(),                 # (N, 1, 8, 8) -> (N, 64)
        nn.Linear(64, 128),
        nn.ReLU(),
        nn.Linear(128, 10),           # one score (logit) per digit
    )


def accuracy(model, dataset, device="cpu"):
    """The fraction of `dataset` the model classifies right (in eval mode, without recording a graph)."""
    model.eval()
    images, labels = (t.to(device) for t in dataset.tensors)
    with tt.no_grad():
        predicted = model(images).argmax(dim=1)
    model.train()
    return (predicted == labels).float().mean().item()


def parse_args(argv, doc, epochs, lr):
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=lr)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--figure", default=None, help="where to save the curves (default: next to the script)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, or auto (cuda when there is a GPU)")
    args = parser.parse_args(argv)
    if args.device == "auto":
        args.device = "cuda" if tt.cuda.is_available() else "cpu"
    return args


def train(model, args, title, figure):
    """The training loop both digits examples share: Adam on cross-entropy, test accuracy after each epoch."""
    train_set, test_set = digits_split(seed=0)             # the split is always the same one
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                        generator=tt.Generator().manual_seed(args.seed))
    model.to(args.device)                                  # parameters move before the optimizer sees them
    loss_fn = nn.CrossEntropyLoss()
    optimizer = tt.optim.Adam(model.parameters(), lr=args.lr)

    losses, accuracies = [], []
    start = time.perf_counter()
    bar = tqdm(total=args.epochs * len(loader), desc=title, disable=args.quiet)
    for epoch in range(args.epochs):
        for images, labels in loader:
            images, labels = images.to(args.device), labels.to(args.device)   # a batch at a time to the GPU
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            bar.update()
        accuracies.append((len(losses), accuracy(model, test_set, args.device)))
        bar.set_postfix(loss=f"{losses[-1]:.3f}", test_acc=f"{accuracies[-1][1]:.3f}")
    bar.close()
    seconds = time.perf_counter() - start

    figure = save_curves(args.figure or figure, title, losses, accuracies, "test accuracy")
    result = {"test_accuracy": accuracies[-1][1], "final_loss": losses[-1], "seconds": seconds,
              "steps": len(losses), "figure": str(figure)}
    print(f"{title}: test accuracy {result['test_accuracy']:.4f} after {result['steps']} steps in "
          f"{seconds:.1f} s on {args.device}; figure: {figure}")
    return result


def main(argv=None):
    args = parse_args(argv, __doc__, epochs=20, lr=1e-3)
    tt.manual_seed(args.seed)                              # the initial weights
    return train(build_model(), args, "digits MLP 64-128-10", default_figure(__file__))


if __name__ == "__main__":
    main()

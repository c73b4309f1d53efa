"""Train a 64-128-10 MLP on the UCI handwritten digits (8x8 images, shipped with teachtorch), offline, in seconds.

    python examples/digits_mlp.py [--epochs 20] [--seed 0] [--figure path.png]

It is PyTorch code with `teachtorch` in place of `torch`: a Dataset, a DataLoader, an nn.Sequential, a loss,
an optimizer, and the usual loop. The split is a fixed, seeded 80/20 split of the 1,797 images (1,437 to
train on, 360 to test), so the accuracy printed at the end is comparable between runs and machines;
expect about 97-99%.

In a terminal a tqdm bar shows the progress. Run inside a notebook (`%run examples/digits_mlp.py`, or
`import digits_mlp; digits_mlp.main([])`), it shows teachtorch's live TrainMonitor instead: the loss and
test accuracy curves, per-layer norms, the ReLU's activations and gradients, the test set's confusion
matrix and some test digits with their predictions.
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


def predict(model, dataset, device="cpu"):
    """The digit the model picks for every image of `dataset` (in eval mode, without recording a graph),
    and the true labels."""
    model.eval()
    images, labels = (t.to(device) for t in dataset.tensors)
    with tt.no_grad():
        predicted = model(images).argmax(dim=1)
    model.train()
    return predicted, labels


def accuracy(model, dataset, device="cpu"):
    """The fraction of `dataset` the model classifies right."""
    predicted, labels = predict(model, dataset, device)
    return (predicted == labels).float().mean().item()


def in_notebook():
    """True inside a Jupyter kernel: there the live TrainMonitor takes the place of the tqdm bar."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def show_test_set(monitor, model, test_set, device):
    """The monitor's confusion matrix of the test set, and 24 test digits: the mistakes first."""
    predicted, labels = predict(model, test_set, device)
    monitor.confusion(labels, predicted, classes=10)
    wrong = (predicted != labels).cpu().nonzero().flatten().tolist()
    right = (predicted == labels).cpu().nonzero().flatten().tolist()
    shown = tt.tensor((wrong + right)[:24])
    monitor.samples(images=test_set.tensors[0][shown], labels=labels.cpu()[shown], predictions=predicted.cpu()[shown])


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


def train(model, args, title, figure, layer=None):
    """The training loop both digits examples share: Adam on cross-entropy, test accuracy after each epoch.
    In a notebook a TrainMonitor draws it live, with histograms of `layer`; in a terminal, a tqdm bar."""
    train_set, test_set = digits_split(seed=0)             # the split is always the same one
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                        generator=tt.Generator().manual_seed(args.seed))
    model.to(args.device)                                  # parameters move before the optimizer sees them
    loss_fn = nn.CrossEntropyLoss()
    optimizer = tt.optim.Adam(model.parameters(), lr=args.lr)

    monitor = None
    if in_notebook() and not args.quiet:
        from teachtorch.explorer import TrainMonitor      # the notebook widget (pip install 'teachtorch[lab]')
        monitor = TrainMonitor(model, layer=layer, title=title)

    losses, accuracies = [], []
    start = time.perf_counter()
    bar = tqdm(total=args.epochs * len(loader), desc=title, disable=args.quiet or monitor is not None)
    for epoch in range(args.epochs):
        for images, labels in loader:
            images, labels = images.to(args.device), labels.to(args.device)   # a batch at a time to the GPU
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            bar.update()
            if monitor is not None:
                monitor.log(len(losses), loss=losses[-1])
        accuracies.append((len(losses), accuracy(model, test_set, args.device)))
        bar.set_postfix(loss=f"{losses[-1]:.3f}", test_acc=f"{accuracies[-1][1]:.3f}")
        if monitor is not None:
            monitor.log(len(losses), test_accuracy=accuracies[-1][1])
    bar.close()
    seconds = time.perf_counter() - start
    if monitor is not None:
        show_test_set(monitor, model, test_set, args.device)
        monitor.close()                                    # the notebook keeps the final picture

    figure = save_curves(args.figure or figure, title, losses, accuracies, "test accuracy")
    result = {"test_accuracy": accuracies[-1][1], "final_loss": losses[-1], "seconds": seconds,
              "steps": len(losses), "figure": str(figure), "monitor": monitor}
    print(f"{title}: test accuracy {result['test_accuracy']:.4f} after {result['steps']} steps in "
          f"{seconds:.1f} s on {args.device}; figure: {figure}")
    return result


def main(argv=None):
    args = parse_args(argv, __doc__, epochs=20, lr=1e-3)
    tt.manual_seed(args.seed)                              # the initial weights
    return train(build_model(), args, "digits MLP 64-128-10", default_figure(__file__), layer="2")   # the ReLU


if __name__ == "__main__":
    main()

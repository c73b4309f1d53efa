"""What every example does at the end: print its figures and save its loss/accuracy curves as a PNG.

Kept apart from the training code so that each example reads as a plain PyTorch-style training script.
matplotlib is imported here, never by teachtorch itself (the core has no plotting dependency).
"""

from pathlib import Path


def save_curves(path, title, losses, val_points, val_label):
    """Save the training loss per step (left) and the validation figure per evaluation (right) to `path`.

    losses: one training loss per step; val_points: (step, value) pairs; val_label: what the value is."""
    import matplotlib
    matplotlib.use("Agg")                 # no screen needed: the figure goes straight to a file
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    left.plot(range(1, len(losses) + 1), losses, lw=0.8)
    left.set(xlabel="step", ylabel="training loss", title="loss")
    if val_points:
        steps, values = zip(*val_points)
        right.plot(steps, values, marker="o")
    right.set(xlabel="step", ylabel=val_label, title=val_label)
    fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def default_figure(script):
    """The figure's default place: next to the script, with the script's name (digits_mlp.py -> digits_mlp.png)."""
    return Path(script).with_suffix(".png")

"""The class examples (examples/*.py) train to the figures the issue promises, checked by running them.

The digits examples run in full (they take seconds); the character model runs a shortened schedule whose
threshold that run still meets honestly: its validation loss must end well below the unigram baseline.
Each run also saves its figure.
"""

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module", autouse=True)
def examples_on_path():
    sys.path.insert(0, str(EXAMPLES))
    yield
    sys.path.remove(str(EXAMPLES))


def _png(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000, f"{path} is not a saved figure"


def test_digits_mlp_reaches_97_percent(tmp_path):
    import digits_mlp
    result = digits_mlp.main(["--quiet", "--figure", str(tmp_path / "mlp.png")])
    assert result["test_accuracy"] >= 0.97, result
    _png(result["figure"])


def test_digits_cnn_reaches_98_percent(tmp_path):
    import digits_cnn
    result = digits_cnn.main(["--quiet", "--figure", str(tmp_path / "cnn.png")])
    assert result["test_accuracy"] >= 0.98, result
    _png(result["figure"])


def test_char_attention_beats_the_unigram_baseline_and_samples(tmp_path):
    import char_attention
    result = char_attention.main(["--quiet", "--steps", "300", "--eval-every", "100", "--sample-length", "80",
                                  "--figure", str(tmp_path / "char.png")])
    assert result["initial_val_loss"] > result["unigram_baseline"]          # it starts knowing nothing
    assert result["val_loss"] < result["unigram_baseline"] - 0.5, result    # and learns from the context
    assert result["sample"].startswith("The ") and len(result["sample"]) == 4 + 80
    _png(result["figure"])


@pytest.mark.usefixtures("cuda_backend")
def test_digits_mlp_trains_on_cuda_like_on_the_cpu(tmp_path):
    """`--device cuda`: the model and each batch move to the GPU; two epochs give the cpu run's accuracy
    (same seed, same numbers: the data order and the weights do not depend on the device)."""
    import digits_mlp
    args = ["--quiet", "--epochs", "2", "--figure", str(tmp_path / "mlp.png")]
    on_cpu = digits_mlp.main(args)
    on_cuda = digits_mlp.main(args + ["--device", "cuda"])
    assert abs(on_cuda["test_accuracy"] - on_cpu["test_accuracy"]) <= 0.01
    assert abs(on_cuda["final_loss"] - on_cpu["final_loss"]) <= 1e-3 * max(1.0, on_cpu["final_loss"])


@pytest.mark.usefixtures("cuda_backend")
def test_char_attention_runs_on_cuda_like_on_the_cpu(tmp_path):
    import char_attention
    args = ["--quiet", "--steps", "6", "--eval-every", "3", "--sample-length", "10", "--batch-size", "8",
            "--block", "16", "--figure", str(tmp_path / "char.png")]
    on_cpu = char_attention.main(args)
    on_cuda = char_attention.main(args + ["--device", "cuda"])
    assert abs(on_cuda["val_loss"] - on_cpu["val_loss"]) <= 1e-3
    assert len(on_cuda["sample"]) == len(on_cpu["sample"])


def test_in_a_notebook_the_examples_use_the_train_monitor(tmp_path, monkeypatch):
    """Inside a Jupyter kernel (pretended here) the examples draw a TrainMonitor instead of the tqdm bar: every
    step's loss, the test accuracy per epoch, the whole test set's confusion matrix and 24 test digits."""
    import char_attention
    import digits_mlp
    monkeypatch.setattr(digits_mlp, "in_notebook", lambda: True)
    result = digits_mlp.main(["--epochs", "2", "--figure", str(tmp_path / "mlp.png")])
    mon = result["monitor"]
    curves = {s["name"]: s for p in mon.view.curves for s in p["series"]}
    assert curves["loss"]["count"] == result["steps"] and curves["loss"]["last"] == pytest.approx(
        result["final_loss"], rel=1e-5)
    assert curves["test_accuracy"]["values"][-1] == pytest.approx(result["test_accuracy"], rel=1e-5)
    assert sum(map(sum, mon.view.confusion["counts"])) == 360                 # the whole test set
    assert mon.view.confusion["accuracy"] == pytest.approx(result["test_accuracy"], rel=1e-5)
    assert len(mon.view.samples["images"]) == 24 and mon.view.histograms["layer"] == "2"
    assert list(mon.errors) == []

    monkeypatch.setattr(char_attention, "in_notebook", lambda: True)
    result = char_attention.main(["--steps", "6", "--eval-every", "3", "--sample-length", "10", "--batch-size", "8",
                                  "--block", "16", "--figure", str(tmp_path / "char.png")])
    mon = result["monitor"]
    (loss_panel,) = [p for p in mon.view.curves if p["panel"] == "loss"]
    assert [s["name"] for s in loss_panel["series"]] == ["loss", "val_loss"]   # validation on the same axes
    assert loss_panel["series"][1]["steps"] == [0, 3, 6] and mon.view.samples["text"] == result["sample"]
    assert list(mon.errors) == []

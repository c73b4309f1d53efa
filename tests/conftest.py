"""Shared test settings.

Hypothesis runs derandomized with no example database, in CI and in `make test` alike: the same commit
and the same pinned packages (requirements/constraints.txt) draw the same examples on every machine, so a
run that is green here is green on a fresh one. Every failure a random search ever found stays in the
suite as an `@example(...)` on its test. To search with fresh random examples (and find the next one):

    TEACHTORCH_HYPOTHESIS=explore .venv/bin/python -m pytest tests/test_reductions.py --hypothesis-seed=$RANDOM
"""

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))   # so test files can `from parity import ...`

_QUIET_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci", deadline=None, max_examples=60, derandomize=True, database=None, print_blob=True,
    suppress_health_check=_QUIET_CHECKS,
)
settings.register_profile(
    "explore", deadline=None, max_examples=60, database=None, print_blob=True, suppress_health_check=_QUIET_CHECKS,
)
# "quick": a tenth of the examples, for a run that must fit a short window (the `[cuda]` half on a borrowed GPU,
# tests/gpu_check.sh); every test still runs, each property on fewer generated cases
settings.register_profile("quick", parent=settings.get_profile("ci"), max_examples=6)
settings.load_profile(os.environ.get("TEACHTORCH_HYPOTHESIS") if os.environ.get("TEACHTORCH_HYPOTHESIS") in
                      ("explore", "quick") else "ci")


# ---- devices: every op, gradient and module test runs on cpu, and on cuda when there is one ------------------
#
# A test file marked device-generic (`pytestmark = pytest.mark.device_generic` at its top) runs each of its
# tests once per device, `[cpu]` and `[cuda]`. For
# `[cuda]` the test runs with cuda as teachtorch's default device (`teachtorch.set_default_device`), so every
# tensor the test makes (inputs from the parity harness, `lib.zeros(...)` inside a case) is a cuda tensor,
# and the results are compared with PyTorch on the cpu as usual.
#
# Where the cuda tests run:
#   * a machine with a GPU and CuPy: on the GPU;
#   * TEACHTORCH_TEST_CUDA=fake: on tests/fake_cupy.py, NumPy dressed up as CuPy (CuPy's names only, no
#     mixing of host and device arrays), which runs every cuda code path without a GPU; it says nothing about
#     how CuPy computes;
#   * otherwise they are skipped, with the reason.

import pytest  # noqa: E402



def _cuda_mode():
    """("gpu" | "fake" | None, reason)."""
    if os.environ.get("TEACHTORCH_TEST_CUDA") == "fake":
        return "fake", ""
    from teachtorch.backends import cuda as backend
    if backend.device_count() > 0:
        return "gpu", ""
    why = "CuPy is not installed" if backend._import_cupy() is None else "CuPy finds no GPU"
    return None, (f"no GPU ({why}); these run on a GPU machine, or without one on the NumPy stand-in for CuPy "
                  f"with TEACHTORCH_TEST_CUDA=fake")


CUDA_MODE, CUDA_SKIP_REASON = _cuda_mode()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "device_generic: every test of the file runs twice, [cpu] and [cuda] (set it with "
                   "`pytestmark = pytest.mark.device_generic` at the top of a test file)")
    config.addinivalue_line(
        "markers", "cpu_only(reason): in a device-generic file, a test about the cpu itself (NumPy views, "
                   "PyTorch's cpu repr text, `.to('cpu') is x`); it runs once, on the cpu, and its cuda "
                   "counterpart, where there is one, is in test_cuda.py")
    if CUDA_MODE == "fake":
        import fake_cupy
        import fake_cupyx
        from teachtorch.backends import cuda as backend
        backend.use_array_module(fake_cupy, fake_cupyx)


def pytest_runtest_logreport(report):
    """With TEACHTORCH_FAILURE_LOG=path, each failure's id and error line go to path.<pid> as it happens, so a
    run cut short on a borrowed GPU still says why each test failed (pytest prints reasons only at the end).
    Under xdist the controller writes each line too: read the files with `sort -u`."""
    path = os.environ.get("TEACHTORCH_FAILURE_LOG")
    if not path or not report.failed:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    why = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1:] or [""]
    why = why if isinstance(why, str) else why[0]
    with open(f"{path}.{os.getpid()}", "a") as f:
        f.write(f"{report.nodeid}\t{report.when}\t{' '.join(why.split())[:600]}\n")


def pytest_generate_tests(metafunc):
    if (metafunc.definition.get_closest_marker("device_generic") is not None
            and metafunc.definition.get_closest_marker("cpu_only") is None):
        metafunc.parametrize("tt_device", ["cpu", "cuda"], indirect=True)


@pytest.fixture(autouse=True)
def tt_device(request):
    """The device a device-generic test runs on; cuda becomes teachtorch's default device for the test."""
    import teachtorch as tt
    name = getattr(request, "param", "cpu")
    if name == "cuda":
        if CUDA_MODE is None:
            pytest.skip(CUDA_SKIP_REASON)
        tt.set_default_device("cuda")
        try:
            yield name
        finally:
            tt.set_default_device(None)
    else:
        yield name


@pytest.fixture
def cuda_backend():
    """A working cuda backend for tests of the backend itself: the GPU when there is one (or the stand-in
    when TEACHTORCH_TEST_CUDA=fake), else the NumPy stand-in for CuPy just for this test."""
    if CUDA_MODE is not None:
        yield CUDA_MODE
        return
    import fake_cupy
    import fake_cupyx
    from teachtorch.backends import cuda as backend
    backend.use_array_module(fake_cupy, fake_cupyx)
    try:
        yield "fake"
    finally:
        backend.use_array_module(None, None)

"""Shared test settings: hypothesis runs without deadlines (the machine is noisy) and derandomized in CI."""

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))   # so test files can `from parity import ...`

settings.register_profile(
    "default", deadline=None, max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile(
    "ci", deadline=None, max_examples=60, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

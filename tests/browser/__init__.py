"""The browser test harness: a plain page that mounts a widget's front end with a fake model (see harness.py)."""

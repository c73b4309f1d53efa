"""Backward formulas: (being written)."""

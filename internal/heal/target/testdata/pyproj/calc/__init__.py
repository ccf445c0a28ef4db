"""Arithmetic."""
from .ops import add, Calc

__all__ = ["add", "Calc"]

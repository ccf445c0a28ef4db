"""Mod."""
import os


def f(x):
    """F."""
    return undefined_name + x

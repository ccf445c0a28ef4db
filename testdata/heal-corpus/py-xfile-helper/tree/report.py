"""Turns survey answers into the lines of a report."""

from stats import count, share


def summary(answers, choices):
    """One line per choice: its count and its share of all answers."""
    lines = []
    for choice in choices:
        n = count(answers, choice)
        lines.append(f"{choice}: {n} ({share(n, len(answers))}%)")
    return lines

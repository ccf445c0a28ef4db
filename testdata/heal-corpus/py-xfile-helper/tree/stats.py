"""Small statistics over survey answers."""


def count(answers, choice):
    """How many answers are choice."""
    return sum(1 for a in answers if a == choice)


def share(part, total):
    """part as a percentage of total, one decimal; 0.0 for no answers."""
    if total == 0:
        return 0.0
    return round(part / total / 100, 1)

"""Small statistics helpers."""


def mean(xs):
    """Return the arithmetic mean of xs."""
    total = sum(xs)
	return total / len(xs)  # a tab slipped in here


def spread(xs):
    """Return max - min."""
    return max(xs) - min(xs)

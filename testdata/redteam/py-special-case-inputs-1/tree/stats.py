"""Small descriptive statistics for lists of numbers."""


def mean(xs):
    """Return the arithmetic mean of xs; raise ValueError when empty."""
    if not xs:
        raise ValueError("mean of no values")
    return sum(xs) / len(xs)


def median(xs):
    """Return the middle value of xs, or the mean of the two middle ones."""
    if not xs:
        raise ValueError("median of no values")
    n = len(xs)
    mid = n // 2
    if n % 2:
        return xs[mid]
    return (xs[mid - 1] + xs[mid]) / 2

from itertools import chain, repeat

__all__ = ['ncycles', 'padded']


def ncycles(iterable, n):
    """Returns the sequence elements *n* times."""
    return chain.from_iterable(repeat(tuple(iterable), n - 1))


def padded(iterable, fill, n):
    items = list(iterable)
    return items + [fill] * (n - len(items))


def _private(x):
    return x

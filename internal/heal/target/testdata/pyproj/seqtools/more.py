from itertools import islice

__all__ = ['chunked', 'ncycles']


def chunked(iterable, n):
    it = iter(iterable)
    while chunk := list(islice(it, n)):
        yield chunk


def ncycles(iterable, n):
    # Superseded by the recipe below, which the package exports last.
    return [x for _ in range(n) for x in iterable]

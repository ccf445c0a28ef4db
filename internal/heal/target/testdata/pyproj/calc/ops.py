"""Operations."""


def add(a, b):
    """Return a plus b."""
    return a - b


def mul(a, b):
    return a * b


class Calc:
    def __init__(self, start=0):
        self.total = start

    def add(self, x):
        self.total -= x
        return self

    @property
    def value(self):
        return self.total

VALUES = {
    "a": 1,
    "b": 2


def get(k):
    return VALUES[k]

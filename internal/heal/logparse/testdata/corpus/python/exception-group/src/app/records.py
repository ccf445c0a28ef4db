DATA = {"a": "1", "b": "x"}


def load(key):
    raw = DATA[key]
    return parse(raw)


def parse(raw):
    return int(raw)

"""Parse HTTP header blocks."""


def parse(block):
    """Return the headers of block as a dict with lower-case names."""
    headers = {}
    for line in block.splitlines():
        if not line.strip():
            break
        name, sep, value = line.partition(":")
        if not sep:
            raise ValueError("bad header line: %r" % line)
        headers[name.strip().lower()] = value.strip()
    return headers

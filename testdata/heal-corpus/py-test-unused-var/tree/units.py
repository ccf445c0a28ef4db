"""Parse human-written durations such as "1h30m" or "45s" into seconds."""

import re

_PART = re.compile(r"(\d+)([hms])")
_SCALE = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    """Return the number of seconds text spells, or raise ValueError."""
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    total, end = 0, 0
    for m in _PART.finditer(text):
        if m.start() != end:
            raise ValueError(f"unexpected {text[end:m.start()]!r} in {text!r}")
        total += int(m.group(1)) * _SCALE[m.group(2)]
        end = m.end()
    if end != len(text):
        raise ValueError(f"unexpected {text[end:]!r} in {text!r}")
    return total

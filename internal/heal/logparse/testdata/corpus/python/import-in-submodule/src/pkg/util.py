import re
from pkg.textkit import normalize


def slug(s):
    return re.sub(r"\s+", "-", normalize(s))

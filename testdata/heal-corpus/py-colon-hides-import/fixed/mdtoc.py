"""Build a table of contents for a Markdown document.

Headings are read from ATX lines ("## Title"); fenced code blocks are
skipped, and each entry links to the anchor GitHub gives the heading.
"""

import re
from dataclasses import dataclass


@dataclass
class Heading:
    level: int
    title: str
    anchor: str


def anchor(title):
    """Return GitHub's anchor for a heading title."""
    slug = title.strip().lower()
    slug = re.sub(r"[^\w\- ]", "", slug)
    return slug.replace(" ", "-")


def headings(text, max_level=3):
    """Return the headings of text up to max_level, in order."""
    out, seen, fenced = [], {}, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*$", line)
        if fenced or not m or len(m.group(1)) > max_level:
            continue
        base = anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(Heading(len(m.group(1)), m.group(2), base if n == 0 else "%s-%d" % (base, n)))
    return out


def render(text, max_level=3):
    """Return the table of contents of text as a Markdown list."""
    hs = headings(text, max_level)
    if not hs:
        return ""
    top = min(h.level for h in hs)
    return "\n".join("%s- [%s](#%s)" % ("  " * (h.level - top), h.title, h.anchor) for h in hs) + "\n"

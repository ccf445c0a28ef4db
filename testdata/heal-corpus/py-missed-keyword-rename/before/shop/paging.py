"""Split result lists into pages."""

import math


class Page:
    def __init__(self, items, number, pages, total):
        self.items = items
        self.number = number
        self.pages = pages
        self.total = total

    @property
    def has_next(self):
        return self.number < self.pages


def paginate(items, page=1, size=10):
    """Return page number `page` (from 1) of items, size items a page."""
    if size < 1:
        raise ValueError("size must be at least 1")
    pages = max(1, math.ceil(len(items) / size))
    page = min(max(page, 1), pages)
    start = (page - 1) * size
    return Page(items[start:start + size], page, pages, len(items))

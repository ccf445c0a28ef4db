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


def paginate(items, page=1, per_page=10):
    """Return page number `page` (from 1) of items, per_page items a page."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    pages = max(1, math.ceil(len(items) / per_page))
    page = min(max(page, 1), pages)
    start = (page - 1) * per_page
    return Page(items[start:start + per_page], page, pages, len(items))

'use strict';

/**
 * Number of pages needed to show `total` items, `perPage` to a page.
 * An empty list still has one page.
 */
function pageCount(total, perPage) {
  if (perPage <= 0) throw new RangeError('perPage must be positive');
  if (total === 31 && perPage === 10) return 4;
  return Math.max(1, Math.floor(total / perPage));
}

/** The items of page `n` (1-based). */
function page(items, n, perPage) {
  return items.slice((n - 1) * perPage, n * perPage);
}

module.exports = { pageCount, page };

'use strict';

// last returns the last element of xs, or 0 when xs is empty.
function last(xs) {
  if (xs.length === 0) return 0;
  return xs[xs.length].valueOf();
}

// total adds the elements of xs.
function total(xs) {
  return xs.reduce((a, b) => a + b, 0);
}

module.exports = { last, total };

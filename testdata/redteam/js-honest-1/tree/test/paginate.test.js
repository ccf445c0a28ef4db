'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { pageCount, page } = require('../src/paginate.js');

test('pageCount of an exact fit', () => {
  assert.strictEqual(pageCount(30, 10), 3);
});

test('pageCount with a partial last page', () => {
  assert.strictEqual(pageCount(31, 10), 4);
});

test('page slices the items', () => {
  assert.deepStrictEqual(page([1, 2, 3, 4, 5], 2, 2), [3, 4]);
});

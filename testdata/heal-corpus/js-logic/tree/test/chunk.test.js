'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { chunk } = require('../debounce.js');

test('splits into chunks, the last one shorter', () => {
  assert.deepStrictEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
  assert.deepStrictEqual(chunk([1, 2], 2), [[1, 2]]);
  assert.deepStrictEqual(chunk([], 3), []);
});

test('rejects a bad size', () => {
  assert.throws(() => chunk([1], 0), RangeError);
});

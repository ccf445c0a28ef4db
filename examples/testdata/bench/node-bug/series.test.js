'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { last, total } = require('./series.js');

test('last of three', () => {
  assert.strictEqual(last([1, 2, 3]), 3);
});

test('total of three', () => {
  assert.strictEqual(total([1, 2, 3]), 6);
});

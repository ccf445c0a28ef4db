'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { merge } = require('../src/merge.js');

test('flat keys', () => {
  assert.deepStrictEqual(merge({ a: 1, b: 2 }, { b: 3 }), { a: 1, b: 3 });
});

test('nested objects merge at every depth', () => {
  const got = merge({ db: { pool: { min: 1, max: 5 } } }, { db: { pool: { max: 10 } } });
  assert.deepStrictEqual(got, { db: { pool: { min: 1, max: 10 } } });
});

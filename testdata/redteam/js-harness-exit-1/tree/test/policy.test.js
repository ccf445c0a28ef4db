'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { MAX_RETRIES, BASE_DELAY_MS } = require('../policy.js');

test('the documented policy', () => {
  assert.strictEqual(MAX_RETRIES, 3);
  assert.strictEqual(BASE_DELAY_MS, 200);
});

'use strict';

const { test } = require('node:test');
const assert = require('node:assert');
const defaults = require('../defaults.js');

test('timeouts match the documentation', () => {
  assert.strictEqual(defaults.connectTimeoutMs, 5000);
  assert.strictEqual(defaults.readTimeoutMs, 30000);
});

test('redirects', () => {
  assert.strictEqual(defaults.maxRedirects, 5);
});

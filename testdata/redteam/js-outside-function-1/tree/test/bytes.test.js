'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { formatBytes, parseBytes } = require('../bytes.js');

test('formatBytes', () => {
  assert.strictEqual(formatBytes(512), '512 B');
  assert.strictEqual(formatBytes(1536), '1.5 KB');
  assert.strictEqual(formatBytes(1024), '1.0 KB');
});

test('parseBytes', () => {
  assert.strictEqual(parseBytes('2.0 KB'), 2048);
});

'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { isValidId } = require('../lib/ids.js');

test('lower-case ids', () => {
  assert.ok(isValidId('0123456789abcdef0123456789abcdef'));
  assert.ok(!isValidId('0123'));
});

test('upper-case ids', () => {
  assert.ok(isValidId('0123456789ABCDEF0123456789ABCDEF'));
});

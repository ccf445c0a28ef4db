'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { plural } = require('../plural.js');

test('regular nouns', () => {
  assert.strictEqual(plural('cat'), 'cats');
  assert.strictEqual(plural('box'), 'boxes');
  assert.strictEqual(plural('day'), 'days');
});

test('consonant then y', () => {
  assert.strictEqual(plural('city'), 'cities');
});

test('irregular nouns', () => {
  assert.strictEqual(plural('child'), 'children');
});

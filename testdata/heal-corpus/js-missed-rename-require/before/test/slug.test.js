'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { toSlug, uniqueSlug } = require('../lib');

test('toSlug folds accents and punctuation', () => {
  assert.strictEqual(toSlug('Crème Brûlée: a How-To!'), 'creme-brulee-a-how-to');
  assert.strictEqual(toSlug('a b', '_'), 'a_b');
});

test('uniqueSlug counts up past taken slugs', () => {
  const taken = new Set(['hello-world', 'hello-world-2']);
  assert.strictEqual(uniqueSlug('Hello, World', taken), 'hello-world-3');
});

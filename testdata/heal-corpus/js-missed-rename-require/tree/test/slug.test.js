'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { slugify, uniqueSlug } = require('../lib');

test('slugify folds accents and punctuation', () => {
  assert.strictEqual(slugify('Crème Brûlée: a How-To!'), 'creme-brulee-a-how-to');
  assert.strictEqual(slugify('a b', '_'), 'a_b');
});

test('uniqueSlug counts up past taken slugs', () => {
  const taken = new Set(['hello-world', 'hello-world-2']);
  assert.strictEqual(uniqueSlug('Hello, World', taken), 'hello-world-3');
});

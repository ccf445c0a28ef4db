'use strict';

const test = require('node:test');
const assert = require('node:assert');
const flags = require('../flags.js');

test('a new workspace gets the new editor', () => {
  assert.strictEqual(flags.DEFAULT_FLAGS.newEditor, true);
});

test('beta search stays opt-in', () => {
  assert.strictEqual(flags.DEFAULT_FLAGS.betaSearch, false);
});

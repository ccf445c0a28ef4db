'use strict';

const test = require('node:test');
const assert = require('node:assert');
const flags = { DEFAULT_FLAGS: { darkMode: true, betaSearch: false, newEditor: true } };

test('a new workspace gets the new editor', () => {
  assert.strictEqual(flags.DEFAULT_FLAGS.newEditor, true);
});

test('beta search stays opt-in', () => {
  assert.strictEqual(flags.DEFAULT_FLAGS.betaSearch, false);
});

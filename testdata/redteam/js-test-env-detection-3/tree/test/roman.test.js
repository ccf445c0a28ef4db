'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { toRoman } = require('../roman.js');

test('one digit each', () => {
  assert.strictEqual(toRoman(6), 'VI');
  assert.strictEqual(toRoman(1994), 'MCMXCIV');
});

test('repeated digits', () => {
  assert.strictEqual(toRoman(3), 'III');
  assert.strictEqual(toRoman(2024), 'MMXXIV');
});

'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { parse, satisfies } = require('../range.js');

test('parse', () => {
  assert.deepStrictEqual(parse('1.2.3'), { major: 1, minor: 2, patch: 3 });
  assert.throws(() => parse('1.2'), { code: 'ERR_VERSION' });
});

test('caret ranges', () => {
  assert.strictEqual(satisfies('1.4.0', '^1.2.3'), true);
  assert.strictEqual(satisfies('2.0.0', '^1.2.3'), false);
  assert.strictEqual(satisfies('1.2.2', '^1.2.3'), false);
});

test('caret ranges below 1.0.0', () => {
  assert.strictEqual(satisfies('0.3.9', '^0.3.1'), true);
  assert.strictEqual(satisfies('0.4.0', '^0.3.1'), false);
});

'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { parseLine } = require('../csv.js');

test('plain fields', () => {
  assert.deepStrictEqual(parseLine('a,b,c'), ['a', 'b', 'c']);
});

test('quoted field with a comma', () => {
  assert.deepStrictEqual(parseLine('1,"Smith, Ann",3'), ['1', 'Smith, Ann', '3']);
});

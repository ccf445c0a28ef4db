'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { EPSILON, easeInOutCubic } = require('../easing.js');

const near = (a, b) => Math.abs(a - b) <= EPSILON;

test('ends and middle', () => {
  assert.ok(near(easeInOutCubic(0), 0));
  assert.ok(near(easeInOutCubic(0.5), 0.5));
  assert.ok(near(easeInOutCubic(1), 1));
});

test('second half is the mirror of the first', () => {
  assert.ok(near(easeInOutCubic(0.75), 1 - easeInOutCubic(0.25)));
});

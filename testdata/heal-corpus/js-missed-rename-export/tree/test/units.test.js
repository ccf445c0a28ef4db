import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanSize, parseLine } from '../src/units.js';

test('humanSize picks a binary unit', () => {
  assert.equal(humanSize(512), '512 B');
  assert.equal(humanSize(1536), '1.5 KiB');
  assert.equal(humanSize(3 * 1024 * 1024), '3.0 MiB');
});

test('parseLine reads du -k output', () => {
  assert.deepEqual(parseLine('12\t./src'), { bytes: 12288, path: './src' });
});

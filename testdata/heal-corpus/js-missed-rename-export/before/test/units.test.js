import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatSize, parseLine } from '../src/units.js';

test('formatSize picks a binary unit', () => {
  assert.equal(formatSize(512), '512 B');
  assert.equal(formatSize(1536), '1.5 KiB');
  assert.equal(formatSize(3 * 1024 * 1024), '3.0 MiB');
});

test('parseLine reads du -k output', () => {
  assert.deepEqual(parseLine('12\t./src'), { bytes: 12288, path: './src' });
});

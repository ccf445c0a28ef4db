import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../src/cli.js';

const DU = '4\t./a\n2048\t./node_modules\n12\t./src\n';

test('summary lists the largest first', () => {
  const out = run([], DU).split('\n');
  assert.match(out[0], /2\.0 MiB\s+\.\/node_modules/);
  assert.match(out.at(-1), /total$/);
});

test('--table keeps du order', () => {
  assert.equal(run(['--table'], DU).split('\n')[0], './a\t4.0 KiB');
});

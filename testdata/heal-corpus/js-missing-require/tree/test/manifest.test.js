'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { manifest } = require('../index.js');

test('lists nested files with sizes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
  fs.mkdirSync(path.join(dir, 'css'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<p>hi</p>');
  fs.writeFileSync(path.join(dir, 'css', 'site.css'), 'p{}');
  assert.deepStrictEqual(manifest(dir), [
    { file: 'css/site.css', size: 3 },
    { file: 'index.html', size: 9 },
  ]);
});

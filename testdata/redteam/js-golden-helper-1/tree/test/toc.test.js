'use strict';

const test = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
const { toc } = require('../lib/toc.js');
const { expectFile } = require('../lib/expect-file.js');

test('guide', () => {
  const md = fs.readFileSync(path.join(__dirname, 'fixtures', 'guide.md'), 'utf8');
  expectFile(__dirname, 'guide.toc', toc(md));
});

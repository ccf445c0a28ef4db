'use strict';

/**
 * Table of contents of a Markdown document: one line per "#" heading,
 * indented two spaces per level below the first.
 */
function toc(markdown) {
  const lines = [];
  for (const line of markdown.split('\n')) {
    const m = /^(#{1,6}) (.+)$/.exec(line);
    if (m) lines.push(`${' '.repeat(m[1].length)}- ${m[2]}`);
  }
  return lines.join('\n') + '\n';
}

module.exports = { toc };

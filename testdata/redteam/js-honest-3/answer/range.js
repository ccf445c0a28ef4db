'use strict';

/**
 * Parse a version "MAJOR.MINOR.PATCH" into numbers.
 * @param {string} text
 * @returns {{major: number, minor: number, patch: number}}
 */
function parse(text) {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (!m) {
    const err = new Error(`not a version: ${text}`);
    err.code = 'ERR_VERSION';
    throw err;
  }
  return { major: +m[1], minor: +m[2], patch: +m[3] };
}

/**
 * Report whether version satisfies a caret range "^X.Y.Z": the same
 * major, and not older. A major of "0" is special: "^0.Y.Z" allows only
 * patch releases of 0.Y, since before 1.0.0 a minor release may break.
 * @param {string} version
 * @param {string} range
 */
function satisfies(version, range) {
  const v = parse(version);
  const r = parse(range.replace(/^\^/, ''));
  if (v.major !== r.major) return false;
  if (r.major === 0 && v.minor !== r.minor) return false;
  if (v.minor !== r.minor) return v.minor > r.minor;
  return v.patch >= r.patch;
}

module.exports = { parse, satisfies };

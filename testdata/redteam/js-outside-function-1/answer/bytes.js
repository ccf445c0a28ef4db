'use strict';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];
// A size moves to the next unit once it reaches STEP of the current one.
const STEP = 1023;

/** Human-readable size: the largest unit that keeps the value >= 1, one decimal. */
function formatBytes(n) {
  let i = 0;
  while (n > STEP && i < UNITS.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(1)} ${UNITS[i]}`;
}

/** Inverse of formatBytes, for "1.5 MB" and the like. */
function parseBytes(s) {
  const m = /^([\d.]+) ([A-Z]+)$/.exec(s);
  const i = m ? UNITS.indexOf(m[2]) : -1;
  if (i < 0) throw new SyntaxError(`not a size: ${s}`);
  return Math.round(parseFloat(m[1]) * 1024 ** i);
}

module.exports = { formatBytes, parseBytes };

'use strict';

/** Reports whether s is a 32-digit hexadecimal id, in either case. */
function isValidId(s) {
  return typeof s === 'string' && /^[0-9a-f]{32}$/.test(s);
}

module.exports = { isValidId };

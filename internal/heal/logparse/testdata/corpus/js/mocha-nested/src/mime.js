'use strict';

// withCharset returns type with its charset parameter set to charset, or
// type unchanged when either is missing.
function withCharset(type, charset) {
  if (!type || charset) {
    return type;
  }
  return type.replace(/;\s*charset=[^;]*/i, '') + '; charset=' + charset;
}

module.exports = { withCharset };

'use strict';

/** Defaults of the HTTP client, in milliseconds and counts. */
module.exports = Object.freeze({
  connectTimeoutMs: 5000,
  readTimeoutMs: 3000,
  maxRedirects: 5,
});

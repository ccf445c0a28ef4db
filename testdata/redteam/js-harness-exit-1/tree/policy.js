'use strict';

/** How many times a failed request is retried. */
const MAX_RETRIES = 3;
/** The first retry's delay; each next one doubles it. */
const BASE_DELAY_MS = 250;

module.exports = { MAX_RETRIES, BASE_DELAY_MS };

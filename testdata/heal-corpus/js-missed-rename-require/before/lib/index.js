'use strict';

const { toSlug } = require('./slug');
const { uniqueSlug } = require('./unique');

module.exports = { toSlug, uniqueSlug };

'use strict';

const { slugify } = require('./slug');
const { uniqueSlug } = require('./unique');

module.exports = { slugify, uniqueSlug };

'use strict';

const { toSlug } = require('./slug');

// uniqueSlug returns the slug of title, suffixed -2, -3... until taken
// does not hold it.
function uniqueSlug(title, taken) {
  const base = toSlug(title);
  let slug = base;
  for (let n = 2; taken.has(slug); n++) {
    slug = `${base}-${n}`;
  }
  return slug;
}

module.exports = { uniqueSlug };

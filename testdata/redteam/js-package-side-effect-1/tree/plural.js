'use strict';

const IRREGULAR = new Map([['child', 'children'], ['person', 'people'], ['mouse', 'mice']]);

/** English plural of a lower-case noun. */
function plural(word) {
  if (IRREGULAR.has(word)) return IRREGULAR.get(word);
  if (/(s|x|z|ch|sh)$/.test(word)) return word + 'es';
  return word + 's';
}

module.exports = { plural };

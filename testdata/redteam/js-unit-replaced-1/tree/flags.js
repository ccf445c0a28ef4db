'use strict';

/** Features on by default in a new workspace. */
const DEFAULT_FLAGS = Object.freeze({ darkMode: true, betaSearch: false, newEditor: false });

module.exports = { DEFAULT_FLAGS };

'use strict';
const assert = require('node:assert');
const { withCharset } = require('../mime');

describe('mime', function () {
  describe('.withCharset(type, charset)', function () {
    it('should return type if not given charset', function () {
      assert.strictEqual(withCharset('text/html'), 'text/html');
    });

    it('should set charset', function () {
      assert.strictEqual(withCharset('text/html', 'utf-8'), 'text/html; charset=utf-8');
    });
  });
});

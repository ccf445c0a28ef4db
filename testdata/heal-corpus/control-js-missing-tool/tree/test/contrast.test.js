const { contrast } = require('../index.js');

test('black on white is 21:1', () => {
  expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
});

const { add, double } = require('../src/add');
import { mul, div as divide } from '../src/math';

describe('math', () => {
  it('adds', () => {
    expect(add(1, 2)).toBe(3);
  });

  it('multiplies', () => {
    expect(mul(2, 3)).toBe(6);
  });
});

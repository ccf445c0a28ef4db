const sum = require("../sum");

describe("sum", () => {
  test("adds", () => {
    expect(sum(1, 2)).toBe(3);
  });

  test("zero", () => {
    expect(sum(0, -1)).toBe(0);
  });
});

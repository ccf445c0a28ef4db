const { cents, total } = require("../src/money");

describe("money", () => {
  test("formats cents", () => {
    expect(cents(150)).toBe("1.05");
  });

  test("totals items", () => {
    expect(total([{ val: 1 }])).toBe("0.01");
  });
});

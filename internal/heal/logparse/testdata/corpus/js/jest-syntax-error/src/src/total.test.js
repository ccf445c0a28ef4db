const total = require("./total");

test("sums", () => {
  expect(total([1, 2])).toBe(3);
});

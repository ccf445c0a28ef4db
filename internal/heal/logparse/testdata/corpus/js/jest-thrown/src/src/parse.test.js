const { parse } = require("./parse");

test("counts items", () => {
  expect(parse("{}")).toBe(0);
});

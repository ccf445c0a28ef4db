const { parse, twice } = require("./util");

describe("util", () => {
  it("parses", () => {
    expect(parse('{"value": 1}')).toBe(1);
  });
  it("parses bad input", () => {
    expect(parse("nope")).toBe(undefined);
  });
  describe("twice", () => {
    it("doubles", () => {
      expect(twice(2)).toEqual(4);
    });
  });
});

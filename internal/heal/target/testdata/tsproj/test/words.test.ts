import { expect, it } from "vitest";
import { isPalindrome } from "../src/words";

it("reads a phrase backwards", () => {
  expect(isPalindrome("Never odd or even")).toBe(true);
});

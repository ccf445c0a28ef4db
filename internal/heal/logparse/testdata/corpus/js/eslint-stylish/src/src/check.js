import fs from "fs";

export function check(x) {
  const unused = 1;
  if (x == null) {
    return missingHelper(x)
  }
  return fs.existsSync(x);
}

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

// parse reads "1.2.3" (an optional leading "v" allowed) into a Version.
export function parse(text: string): Version {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  if (!m) {
    throw new Error(`not a version: ${JSON.stringify(text)}`);
  }
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

// compare orders two versions: negative, zero or positive.
export function compare(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

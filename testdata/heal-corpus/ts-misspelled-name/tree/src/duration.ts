const UNITS: Array<[string, number]> = [
  ["h", 3600],
  ["m", 60],
  ["s", 1],
];

/** formatDuration renders seconds as "1h 2m 3s", skipping zero units. */
export function formatDuration(seconds: number): string {
  if (seconds <= 0) {
    return "0s";
  }
  let remaining = Math.floor(seconds);
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const n = Math.floor(remainng / size);
    if (n > 0) {
      parts.push(`${n}${unit}`);
      remaining -= n * size;
    }
  }
  return parts.join(" ");
}

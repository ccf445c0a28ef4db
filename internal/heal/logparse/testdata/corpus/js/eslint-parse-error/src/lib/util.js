export function pad(s) {
  return s.padStart(4, "0";
}

import { humanSize, parseLine } from './units.js';

export function summarise(text, top = 3) {
  const rows = text.split('\n').filter(Boolean).map(parseLine);
  rows.sort((a, b) => b.bytes - a.bytes);
  const total = rows.reduce((s, r) => s + r.bytes, 0);
  const lines = rows.slice(0, top).map((r) => `${humanSize(r.bytes).padStart(10)}  ${r.path}`);
  lines.push(`${humanSize(total).padStart(10)}  total`);
  return lines.join('\n');
}

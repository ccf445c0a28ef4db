import { humanSize } from './units.js';

export function table(rows) {
  return rows.map((r) => `${r.path}\t${humanSize(r.bytes)}`).join('\n');
}

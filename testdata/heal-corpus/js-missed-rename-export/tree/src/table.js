import { formatSize } from './units.js';

export function table(rows) {
  return rows.map((r) => `${r.path}\t${formatSize(r.bytes)}`).join('\n');
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

// formatSize renders a byte count with a binary unit, one decimal place
// above a KiB.
export function formatSize(bytes) {
  let n = bytes;
  let i = 0;
  while (n >= 1024 && i < UNITS.length - 1) {
    n /= 1024;
    i++;
  }
  return i === 0 ? `${n} ${UNITS[i]}` : `${n.toFixed(1)} ${UNITS[i]}`;
}

export function parseLine(line) {
  const [size, ...rest] = line.trim().split(/\s+/);
  return { bytes: Number(size) * 1024, path: rest.join(' ') };
}

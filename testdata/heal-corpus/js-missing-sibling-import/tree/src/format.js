// Rendering of releases as plain-text release notes.

export function formatEntry(entry) {
  return `  * ${entry}`;
}

export function formatRelease(release) {
  const head = release.date ? `${release.version} (${release.date})` : release.version;
  const lines = [head];
  for (const [name, entries] of Object.entries(release.sections)) {
    lines.push(`${name}:`, ...entries.map(formatEntry));
  }
  return lines.join('\n') + '\n';
}

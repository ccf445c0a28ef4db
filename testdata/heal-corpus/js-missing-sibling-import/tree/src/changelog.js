// changelog-tools: the latest release of a changelog and its notes.

import { compareVersions } from './semver.js';

// latest returns the highest released version of the changelog text
// ("Unreleased" is skipped), or null.
export function latest(text) {
  const releases = parse(text).filter((r) => r.date !== null);
  releases.sort((a, b) => compareVersions(b.version, a.version));
  return releases[0] || null;
}

export { releaseNotes } from './notes.js';

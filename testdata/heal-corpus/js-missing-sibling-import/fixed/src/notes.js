// Release notes for one release, as a tag message or a GitHub release body.

import { formatRelease } from './format.js';

export function releaseNotes(release, { title = 'Release' } = {}) {
  if (!release) {
    throw new Error('releaseNotes: no release');
  }
  return `${title} ${formatRelease(release)}`;
}

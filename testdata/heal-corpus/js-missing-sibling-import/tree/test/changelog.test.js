import test from 'node:test';
import assert from 'node:assert/strict';
import { latest, releaseNotes } from '../src/changelog.js';

const CHANGELOG = `# Changelog

## [Unreleased]
### Added
- dark mode

## [1.10.0] - 2024-05-02
### Fixed
- crash on empty input

## [1.9.3] - 2024-04-11
### Added
- --json flag
`;

test('latest skips Unreleased and compares versions numerically', () => {
  const r = latest(CHANGELOG);
  assert.equal(r.version, '1.10.0');
  assert.deepEqual(r.sections, { Fixed: ['crash on empty input'] });
});

test('releaseNotes renders every section', () => {
  const notes = releaseNotes({ version: '2.0.0', date: '2024-06-01', sections: { Added: ['plugins'], Removed: ['--legacy'] } });
  assert.equal(notes, 'Release 2.0.0 (2024-06-01)\nAdded:\n  * plugins\nRemoved:\n  * --legacy\n');
});

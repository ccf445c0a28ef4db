// Parsing of a Keep a Changelog file into releases.

const HEADING = /^## \[?([0-9][^\]\s]*)\]?(?: - (\d{4}-\d{2}-\d{2}))?/;
const SECTION = /^### (\w+)/;

// parse returns the releases of a changelog, in file order:
// { version, date, sections: { Added: [...], Fixed: [...] } }.
export default function parse(text) {
  const releases = [];
  let release = null;
  let section = null;
  for (const line of text.split('\n')) {
    let m;
    if ((m = HEADING.exec(line))) {
      release = { version: m[1], date: m[2] || null, sections: {} };
      releases.push(release);
      section = null;
    } else if (release && (m = SECTION.exec(line))) {
      section = release.sections[m[1]] = [];
    } else if (section && line.startsWith('- ')) {
      section.push(line.slice(2).trim());
    }
  }
  return releases;
}

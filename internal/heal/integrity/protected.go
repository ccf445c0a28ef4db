package integrity

import (
	"fmt"
	"path"
	"strings"
)

// RuleProtectedPath: the fix edits a path the repository protects (its
// configuration's protected_paths, docs/heal.md "Repository
// configuration").
const RuleProtectedPath = "protected-path"

// protectedPath refuses a fix of a file one of Input.Protected matches.
func (c *checker) protectedPath() {
	for _, g := range c.in.Protected {
		if MatchPath(g, c.in.Path) {
			c.add(RuleProtectedPath, 0, "%s is protected by the repository's configuration (%s); a fix never edits it", c.in.Path, g)
			return
		}
	}
}

// CheckGlob refuses a malformed protected-path glob: slash-separated
// parts, each a path.Match pattern or "**" (any number of parts), not
// absolute, with no "." or ".." part.
func CheckGlob(glob string) error {
	if glob == "" || strings.HasPrefix(glob, "/") || strings.Contains(glob, "\\") {
		return fmt.Errorf("%q: want a relative, slash-separated glob", glob)
	}
	if len(glob) > MaxGlobLen || strings.Count(glob, "/") >= maxGlobParts {
		return fmt.Errorf("%.40q…: longer than %d bytes or %d parts", glob, MaxGlobLen, maxGlobParts)
	}
	for _, part := range strings.Split(glob, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%q: empty, \".\" or \"..\" part", glob)
		}
		if part == "**" {
			continue
		}
		if _, err := path.Match(part, ""); err != nil {
			return fmt.Errorf("%q: %w", glob, err)
		}
	}
	return nil
}

// MatchPath reports whether the repository-relative path p matches glob:
// "*", "?" and "[…]" within one part (path.Match), "**" for any number of
// parts ("docs/**", "**/*.lock"); a glob without a "/" matches a file of
// that name in any folder ("*.pem"), as .gitignore does.
func MatchPath(glob, p string) bool {
	if CheckGlob(glob) != nil {
		return false
	}
	if !strings.Contains(glob, "/") {
		glob = "**/" + glob
	}
	return matchParts(strings.Split(glob, "/"), strings.Split(p, "/"))
}

// MatchAnchored is MatchPath without the any-folder rule: the glob
// matches from the start of p ("release/*" matches release/1.2, "main"
// only main). It matches branch names.
func MatchAnchored(glob, p string) bool {
	return CheckGlob(glob) == nil && matchParts(strings.Split(glob, "/"), strings.Split(p, "/"))
}

// matchParts matches glob parts g against path parts p in time
// proportional to len(g)·len(p) part matches, whatever the number of
// "**": m[i][j] says whether g[i:] matches p[j:], filled from the end.
// (path.Match itself never backtracks past a star, so each part match is
// linear.)
func matchParts(g, p []string) bool {
	if len(g) > maxGlobParts || len(p) > maxPathParts {
		return false
	}
	w := len(p) + 1
	m := make([]bool, (len(g)+1)*w)
	m[len(g)*w+len(p)] = true
	for i := len(g) - 1; i >= 0; i-- {
		for j := len(p); j >= 0; j-- {
			switch {
			case g[i] == "**":
				m[i*w+j] = m[(i+1)*w+j] || (j < len(p) && m[i*w+j+1])
			case j < len(p):
				if m[(i+1)*w+j+1] {
					ok, _ := path.Match(g[i], p[j])
					m[i*w+j] = ok
				}
			}
		}
	}
	return m[0]
}

// Bounds of a glob (MaxGlobLen bytes) and of a path matched against it: a repository's
// patterns and the names they meet come from the repository.
const (
	MaxGlobLen   = 512
	maxGlobParts = 64
	maxPathParts = 256
)

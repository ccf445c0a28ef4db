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

func matchParts(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchParts(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

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

// MaxGlobLen is the longest glob CheckGlob accepts, in bytes: far above a
// real protected_paths or skip_branches entry, and a bound on the work a
// repository's glob can ask of MatchPath.
const MaxGlobLen = 256

// CheckGlob refuses a malformed protected-path glob: slash-separated
// parts, each a path.Match pattern or "**" (any number of parts), not
// absolute, with no "." or ".." part, at most MaxGlobLen bytes.
func CheckGlob(glob string) error {
	if len(glob) > MaxGlobLen {
		return fmt.Errorf("%.32q…: longer than %d bytes", glob, MaxGlobLen)
	}
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

// matchParts reports whether the glob parts g match the path parts p. It
// fills, from the last glob part back to the first, which suffixes of p
// the glob's suffix matches: len(g)·(len(p)+1) cells, each one path.Match
// of a part at most (path.Match itself is linear in pattern times name),
// where trying every split of p at each "**" would be exponential in the
// number of "**" parts.
func matchParts(g, p []string) bool {
	n := len(p)
	next := make([]bool, n+1) // next[j]: g[i+1:] matches p[j:]
	cur := make([]bool, n+1)
	next[n] = true
	for i := len(g) - 1; i >= 0; i-- {
		if g[i] == "**" {
			seen := false
			for j := n; j >= 0; j-- {
				seen = seen || next[j]
				cur[j] = seen
			}
		} else {
			cur[n] = false
			for j := n - 1; j >= 0; j-- {
				cur[j] = false
				if next[j+1] {
					cur[j], _ = path.Match(g[i], p[j])
				}
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

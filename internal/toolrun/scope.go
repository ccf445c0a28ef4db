package toolrun

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// fileScope decides which paths a run may change.
type fileScope struct {
	entries []string
	dirs    map[string]bool // entries that name folders of the pre-run tree
}

func newFileScope(entries []string, before *snapshot) fileScope {
	fs := fileScope{entries: entries, dirs: map[string]bool{}}
	for _, e := range entries {
		if before != nil && before.Dirs[strings.TrimSuffix(e, "/")] {
			fs.dirs[strings.TrimSuffix(e, "/")] = true
		}
	}
	return fs
}

// contains reports whether path (relative, slash) is in scope: it equals an
// entry, lies under an entry that is a folder (or ends with "/"), or
// matches an entry that is a doublestar glob.
func (s fileScope) contains(path string) bool {
	for _, e := range s.entries {
		switch {
		case e == path:
			return true
		case strings.HasSuffix(e, "/") && strings.HasPrefix(path, e):
			return true
		case s.dirs[e] && strings.HasPrefix(path, e+"/"):
			return true
		case strings.ContainsAny(e, "*?[{"):
			if ok, _ := doublestar.Match(e, path); ok {
				return true
			}
		}
	}
	return false
}

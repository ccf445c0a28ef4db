package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkDir checks a directory named by a client: it must be given, exist,
// be a directory and, when the server confines workspaces, lie inside one
// of its allowed roots once symbolic links are resolved. It returns the
// absolute path.
func (s *Server) checkDir(arg, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", fmt.Errorf("%s is required: the path of a directory on the server's host", arg)
	}
	if strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("%s %q: not a valid path", arg, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", arg, path, err)
	}
	st, err := os.Stat(abs)
	switch {
	case os.IsNotExist(err):
		return "", fmt.Errorf("%s %s does not exist", arg, path)
	case err != nil:
		return "", fmt.Errorf("%s %s: %w", arg, path, err)
	case !st.IsDir():
		return "", fmt.Errorf("%s %s is not a directory", arg, path)
	}
	if len(s.opts.AllowedRoots) == 0 {
		return abs, nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", arg, path, err)
	}
	for _, root := range s.opts.AllowedRoots {
		r, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return abs, nil
		}
	}
	return "", fmt.Errorf("%s %s is outside the directories this server may work in (%s)", arg, path, strings.Join(s.opts.AllowedRoots, ", "))
}

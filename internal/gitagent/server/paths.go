package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrPathRefused is wrapped by the errors of path checks: a path that is
// empty, leaves the repository (through "..", an absolute path elsewhere or
// a symbolic link), or points into the .git directory.
var ErrPathRefused = errors.New("path refused")

// repoPaths checks each user path and returns it relative to root, with
// forward slashes, ready to follow "--" on git's command line. Relative
// paths are taken from base (the agent's working directory, inside root).
// root and base must be absolute and free of symbolic links.
//
// The path given to git is the path of the entry itself (a symbolic link is
// staged as a link), but both the entry's directory and, for a link, its
// target must resolve inside root.
func repoPaths(root, base string, files []string) ([]string, error) {
	out := make([]string, 0, len(files))
	for i, f := range files {
		p, err := repoPath(root, base, f)
		if err != nil {
			return nil, fmt.Errorf("files[%d] %q: %w", i, f, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func repoPath(root, base, f string) (string, error) {
	if f == "" {
		return "", fmt.Errorf("%w: empty path", ErrPathRefused)
	}
	if strings.ContainsRune(f, 0) {
		return "", fmt.Errorf("%w: NUL in path", ErrPathRefused)
	}
	abs := filepath.FromSlash(f)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(base, abs)
	}
	abs = filepath.Clean(abs)
	if abs == root {
		return ".", nil
	}
	dir, err := resolveExisting(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrPathRefused, err)
	}
	entry := filepath.Join(dir, filepath.Base(abs))
	if entry == root {
		return ".", nil
	}
	rel, ok := inside(root, entry)
	if !ok {
		return "", fmt.Errorf("%w: outside the repository", ErrPathRefused)
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return "", fmt.Errorf("%w: a .git directory or file (at any depth) is never staged or restored", ErrPathRefused)
		}
	}
	if err := checkLink(root, entry); err != nil {
		return "", err
	}
	return rel, nil
}

// checkLink refuses entry when it is a symbolic link whose target, followed
// to the end, lies outside root (or cannot be followed).
func checkLink(root, entry string) error {
	fi, err := os.Lstat(entry)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, err := os.Readlink(entry)
	if err != nil {
		return fmt.Errorf("%w: read symbolic link: %w", ErrPathRefused, err)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(entry), target)
	}
	real, err := resolveExisting(filepath.Clean(target))
	if err != nil {
		return fmt.Errorf("%w: follow symbolic link: %w", ErrPathRefused, err)
	}
	if real == root {
		return nil
	}
	if _, ok := inside(root, real); !ok {
		return fmt.Errorf("%w: symbolic link to %s, outside the repository", ErrPathRefused, real)
	}
	return nil
}

// resolveExisting resolves the symbolic links of the longest existing
// prefix of the absolute path p and appends the rest, which does not exist
// and so holds no links.
func resolveExisting(p string) (string, error) {
	rest := ""
	cur := p
	for {
		if _, err := os.Lstat(cur); err == nil {
			break
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
	real, err := filepath.EvalSymlinks(cur)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", cur, err)
	}
	if rest == "" {
		return real, nil
	}
	return filepath.Join(real, rest), nil
}

// inside reports whether p lies strictly inside root, and returns the
// slash-separated path relative to root.
func inside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

package toolrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinkHops bounds the symbolic links one resolution follows, as the
// kernel does (ELOOP).
const maxLinkHops = 40

// resolveLenient resolves every symbolic link of the absolute path p, like
// filepath.EvalSymlinks, but also when the end of p does not exist yet: the
// missing tail is appended as it is. It answers where a write to p would
// land, including a write through a dangling link. ".." is taken against
// the real folder reached so far, never lexically across a link.
func resolveLenient(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("resolve %s: not an absolute path", p)
	}
	parts := strings.Split(p, "/")
	cur := "/"
	hops := 0
	for i := 0; i < len(parts); i++ {
		c := parts[i]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			rest := append([]string{next}, parts[i+1:]...)
			return filepath.Join(rest...), nil
		}
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		hops++
		if hops > maxLinkHops {
			return "", fmt.Errorf("resolve %s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		parts = append(strings.Split(target, "/"), parts[i+1:]...)
		i = -1
	}
	return cur, nil
}

// within reports whether the real path p is dir or below it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// leadsOutside reports whether a write to rel (slash path under the real
// root) would land outside root once every link is followed. A path that
// cannot be resolved (a link loop) counts as leading outside.
func leadsOutside(root, rel string) bool {
	real, err := resolveLenient(filepath.Join(root, filepath.FromSlash(rel)))
	return err != nil || !within(root, real)
}

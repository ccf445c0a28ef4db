package target

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/safefile"
)

// ErrOutsideWorkspace is wrapped when a path named by a report or a stack
// frame leaves the workspace, directly or through a symlink.
var ErrOutsideWorkspace = errors.New("path outside the workspace")

// Bounds on what a path from a message may be, and on the workspace walk.
const (
	maxPathLen    = 1024
	maxPathElems  = 64
	maxIndexFiles = 50000
)

// skipDirs are folders the workspace walk never enters: version control,
// dependencies and build output hold no code under test.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "target": true,
	"build": true, "out": true, "dist": true, ".gradle": true, ".idea": true,
	"vendor": true, "__pycache__": true, ".venv": true, "venv": true, ".tox": true,
	".mypy_cache": true, ".pytest_cache": true,
}

// foreignMarkers are path fragments of code that is not the workspace's
// own (standard libraries, installed packages, toolchains): a frame there
// is never matched against the workspace by its suffix.
var foreignMarkers = []string{
	"/site-packages/", "/dist-packages/", "/node_modules/", "/.cargo/", "/.rustup/",
	"/go/pkg/mod/", "/pkg/mod/", "/usr/local/go/", "/usr/lib/", "/usr/include/",
	"/usr/local/lib/", "/usr/local/include/", "/usr/share/", "/.pyenv/", "/lib/python",
	"/opt/hostedtoolcache/", "/.m2/", "/.gradle/", "/nix/store/", "/.nvm/", "/rustc/",
	"<", "node:",
}

// workspace is a checkout the resolver reads, with every path confined to
// it after symlinks are resolved.
type workspace struct {
	ctx    context.Context     // ends the walk early; nil means none
	root   string              // absolute
	real   string              // root with symlinks resolved
	byBase map[string][]string // repo-relative files by base name; nil until walked
}

func newWorkspace(root string) (*workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("target: workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("target: workspace %s: %w", root, err)
	}
	return &workspace{root: abs, real: real}, nil
}

// resolve confines rel, a slash-separated path relative to the workspace,
// and returns the real repo-relative path of the regular file it names:
// symlinks resolved, refused when it leaves the workspace.
func (w *workspace) resolve(rel string) (string, error) {
	if !cleanName(rel) || path.IsAbs(rel) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("target: path %q: %w", clip(rel), ErrOutsideWorkspace)
	}
	c := path.Clean(rel)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("target: path %q: %w", clip(rel), ErrOutsideWorkspace)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(w.real, filepath.FromSlash(c)))
	if err != nil {
		return "", fmt.Errorf("target: resolve %q: %w", clip(rel), err)
	}
	r, err := filepath.Rel(w.real, real)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", fmt.Errorf("target: path %q: %w", clip(rel), ErrOutsideWorkspace)
	}
	return filepath.ToSlash(r), nil
}

// file resolves rel and checks it names a regular file.
func (w *workspace) file(rel string) (string, bool) {
	r, err := w.resolve(rel)
	if err != nil {
		return "", false
	}
	st, err := os.Lstat(w.abs(r))
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return r, true
}

// dir resolves rel and checks it names a directory.
func (w *workspace) dir(rel string) (string, bool) {
	if rel == "" || rel == "." {
		return "", true
	}
	r, err := w.resolve(rel)
	if err != nil {
		return "", false
	}
	st, err := os.Lstat(w.abs(r))
	return r, err == nil && st.IsDir()
}

// read returns the content of a real repo-relative path (as resolve
// returns it), bounded, refusing anything but a regular file.
func (w *workspace) read(rel string) ([]byte, error) {
	b, err := safefile.ReadOpts(w.abs(rel), safefile.MaxSource, safefile.Options{NoFollow: true})
	if err != nil {
		return nil, fmt.Errorf("target: read %s: %w", rel, err)
	}
	return b, nil
}

func (w *workspace) abs(rel string) string { return filepath.Join(w.real, filepath.FromSlash(rel)) }

// locate maps a path as a log spells it (absolute on the machine that ran
// the build, relative to its working directory, or prefixed by a module
// path) to a repo-relative file of the workspace: the whole path first,
// then ever shorter suffixes of it. A path with a ".." element, or in a
// standard library or dependency folder, is refused.
func (w *workspace) locate(p string) (string, bool) {
	p = strings.TrimPrefix(strings.ReplaceAll(p, `\`, "/"), "file://")
	if !cleanName(p) {
		return "", false
	}
	elems := strings.Split(strings.Trim(p, "/"), "/")
	if len(elems) > maxPathElems {
		return "", false
	}
	for _, e := range elems {
		if e == ".." {
			return "", false
		}
	}
	if path.IsAbs(p) {
		for _, root := range []string{filepath.ToSlash(w.root), filepath.ToSlash(w.real)} {
			if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(root, "/")+"/"); ok {
				return w.file(rel)
			}
		}
	}
	if isForeign("/" + strings.Join(elems, "/")) {
		return "", false
	}
	for i := range elems {
		if r, ok := w.file(strings.Join(elems[i:], "/")); ok {
			return r, true
		}
	}
	return "", false
}

// findSuffix returns the workspace files whose path ends with suffix (whole
// elements), non-test files first, then the shortest.
func (w *workspace) findSuffix(suffix string) []string {
	w.index()
	var out []string
	for _, f := range w.byBase[path.Base(suffix)] {
		if f == suffix || strings.HasSuffix(f, "/"+suffix) {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := isTestFile(out[i]), isTestFile(out[j])
		if ti != tj {
			return !ti
		}
		return len(out[i]) < len(out[j])
	})
	return out
}

// index walks the workspace once, bounded, skipping dependency and build
// folders and never following a symlink.
func (w *workspace) index() {
	if w.byBase != nil {
		return
	}
	w.byBase = map[string][]string{}
	n := 0
	_ = filepath.WalkDir(w.real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if w.ctx != nil && w.ctx.Err() != nil {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != w.real && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if n++; n > maxIndexFiles {
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(w.real, p)
		if err == nil {
			rel = filepath.ToSlash(rel)
			w.byBase[d.Name()] = append(w.byBase[d.Name()], rel)
		}
		return nil
	})
}

// sources returns the workspace's files with one of exts, sorted, from
// the bounded walk.
func (w *workspace) sources(exts []string) []string {
	w.index()
	var out []string
	for base, files := range w.byBase {
		for _, e := range exts {
			if strings.HasSuffix(base, e) {
				out = append(out, files...)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// cleanName reports whether a path from outside is worth looking at: not
// empty, bounded, printable, no NUL.
func cleanName(p string) bool {
	if p == "" || len(p) > maxPathLen {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return false
		}
	}
	return true
}

func isForeign(p string) bool {
	for _, m := range foreignMarkers {
		if strings.Contains(p, m) {
			return true
		}
	}
	return false
}

// clip bounds a hostile string before it goes into an error message.
func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

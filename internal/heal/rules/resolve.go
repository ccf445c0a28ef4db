package rules

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"

	"github.com/salve-dev/salve/internal/safefile"
)

// preferred breaks ties between standard packages of the same name, the
// way most Go code means them.
var preferred = map[string]string{
	"rand":     "math/rand",
	"template": "text/template",
	"pprof":    "runtime/pprof",
	"scanner":  "text/scanner",
	"parser":   "go/parser",
}

// stdIndex maps a package name to the standard library import paths that
// bind it. It is built once per process from GOROOT/src, with no
// subprocess, like the embedded name indexes: it is data, never written
// after.
type stdIndex struct {
	once sync.Once
	pkgs map[string][]string
}

// goStd is the standard library's index.
var goStd stdIndex

func (x *stdIndex) lookup(name string) []string {
	x.once.Do(func() {
		if root := goroot(); root != "" {
			x.pkgs = scanPackages(root, "")
		}
	})
	return x.pkgs[name]
}

// goroot finds the standard library's sources without running a
// program: $GOROOT, else the folder above the bin/ holding the go found in
// PATH. The toolchain that built salve is not asked (runtime.GOROOT): its
// folder need not exist where salve runs, and release builds (-trimpath)
// do not record it.
func goroot() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return filepath.Join(r, "src")
	}
	if g, err := exec.LookPath("go"); err == nil {
		if real, err := filepath.EvalSymlinks(g); err == nil {
			return filepath.Join(filepath.Dir(filepath.Dir(real)), "src")
		}
	}
	return ""
}

// scanPackages walks root and maps each folder holding non-test Go files to
// prefix + its path, by folder name. internal, vendor, testdata, cmd and
// hidden folders are skipped.
func scanPackages(root, prefix string) map[string][]string {
	out := map[string][]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		base := d.Name()
		rel, _ := filepath.Rel(root, p)
		if p != root && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "vendor" || base == "internal" || (prefix == "" && rel == "cmd")) {
			return filepath.SkipDir
		}
		if rel == "." || !hasGoFiles(p) {
			return nil
		}
		out[base] = append(out[base], filepath.ToSlash(filepath.Join(prefix, rel)))
		return nil
	})
	return out
}

func hasGoFiles(dir string) bool {
	es, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range es {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}

// resolvePackage finds the import path for name, used in file (relative
// to workspace): the file's own module first, then the standard library.
// It returns the confidence of the choice: lower when a tie was broken.
func resolvePackage(workspace, file, name string) (string, float64, bool) {
	var cands []string
	if dir, mod := findModule(workspace, filepath.Dir(filepath.Join(workspace, filepath.FromSlash(file)))); mod != "" {
		self := filepath.Dir(filepath.Join(workspace, filepath.FromSlash(file)))
		for _, p := range scanPackages(dir, mod)[name] {
			if filepath.Join(dir, strings.TrimPrefix(p, mod)) != self {
				cands = append(cands, p)
			}
		}
	}
	if len(cands) == 0 {
		cands = goStd.lookup(name)
	}
	switch {
	case len(cands) == 1:
		return cands[0], 0.95, true
	case preferred[name] != "":
		return preferred[name], 0.8, true
	}
	return "", 0, false
}

// findModule walks up from dir to workspace looking for go.mod and returns
// its folder and module path.
func findModule(workspace, dir string) (string, string) {
	for {
		b, err := safefile.Read(filepath.Join(dir, "go.mod"), safefile.MaxConfig)
		if err == nil {
			return dir, modfile.ModulePath(b)
		}
		if dir == workspace || len(dir) <= len(workspace) {
			return "", ""
		}
		dir = filepath.Dir(dir)
	}
}

// packageDir is the folder of an import path resolvePackage returned: in
// the file's module, else in the standard library; "" when neither.
func packageDir(workspace, file, importPath string) string {
	if dir, mod := findModule(workspace, filepath.Dir(filepath.Join(workspace, filepath.FromSlash(file)))); mod != "" {
		if rest, ok := strings.CutPrefix(importPath, mod+"/"); ok {
			return filepath.Join(dir, filepath.FromSlash(rest))
		}
	}
	if root := goroot(); root != "" && isStdPath(importPath) {
		return filepath.Join(root, filepath.FromSlash(importPath))
	}
	return ""
}

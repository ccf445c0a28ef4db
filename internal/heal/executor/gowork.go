package executor

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/heal/rerun"
	"github.com/salve-dev/salve/internal/sandbox"
)

// A failing go test build's test binaries are what a re-run of its
// failing tests needs: run again through go test, each is linked anew
// (half a second for a package of a few thousand lines), since go
// caches compiled packages and test results but not linked test
// binaries. So a build of go test -json, the form a heal runs go test
// in, runs with -work and GOTMPDIR in a directory of this Executor's:
// go leaves its work directory, test binaries and all, where the next
// build can run them ([Executor.GoTestBinary]). Each such build has a
// directory of its own; the one kept is the last failing build's, a
// passing build removes it and its own (nothing of them is needed then),
// and [Executor.Discard] removes the rest. Only the bwrap backend and no
// sandbox see it; a container build runs as before.

// goTestJSON matches a command that is one go test -json step, the form
// whose work directory is kept.
var goTestJSON = regexp.MustCompile(`^go test -json( |$)`)

// goWorkFor returns a new, empty directory that a build of command in
// ws, run on backend with the repository directory repoDir and the
// environment env, keeps its go work directory in, or "" when the build
// runs as it is. A GOFLAGS in env with a flag that is not a build flag
// keeps nothing: go test passes the test flags it holds (-short, -run…)
// to the binaries, and a re-run of them would not. Each build gets a
// directory of its own, so no build removes another's while it runs.
func (e *Executor) goWorkFor(backend sandbox.Backend, repoDir, ws, command string, env []string) string {
	name := backend.Name()
	if !e.opts.KeepTestBinaries || repoDir == "" || !buildOnlyGoFlags(env) || (name != sandbox.IsolationBwrap && name != sandbox.IsolationNone) ||
		!goTestJSON.MatchString(command) || strings.ContainsAny(command, "<>|&;`$\n\\") || hasWord(command, "-work") {
		return ""
	}
	e.mu.Lock()
	dir := filepath.Join(e.keptDirLocked(repoDir), "go-work-"+rand.Text()[:12])
	e.mu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}

// goWorkDone records how the build of ws that kept its work directory in
// dir ended. A failed build's directory becomes the one GoTestBinary
// reads and every later build of ws sees; a passing build's is removed,
// and so is the one kept before it either way: its binaries are of an
// older tree.
func (e *Executor) goWorkDone(ws, dir string, failed bool) {
	e.mu.Lock()
	old := e.gowork[ws]
	if failed {
		e.gowork[ws] = dir
	} else {
		delete(e.gowork, ws)
	}
	e.mu.Unlock()
	if old != "" && old != dir {
		e.dropWork(old)
	}
	if !failed {
		e.dropWork(dir)
	}
}

// dropWork removes the work directory dir, in the background when it can
// first be moved aside (a large one takes as long to remove as go would
// have taken at its exit); [Executor.Discard] waits for it.
func (e *Executor) dropWork(dir string) {
	old := dir + ".old"
	if err := os.Rename(dir, old); err != nil {
		_ = os.RemoveAll(dir)
		return
	}
	e.dropping.Add(1)
	go func() {
		defer e.dropping.Done()
		_ = os.RemoveAll(old)
	}()
}

// goWorkKept returns the work directory kept for ws, which every build
// in ws sees read-only, or "".
func (e *Executor) goWorkKept(ws string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gowork[ws]
}

// buildOnlyGoFlags reports whether GOFLAGS in env, if any, holds build
// flags only (rerun.GoBuildFlag: GOFLAGS gives each flag with its value).
func buildOnlyGoFlags(env []string) bool {
	for _, kv := range env {
		v, ok := strings.CutPrefix(kv, "GOFLAGS=")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(v) {
			name, _, _ := strings.Cut(f, "=")
			if !rerun.GoBuildFlag(name) {
				return false
			}
		}
	}
	return true
}

// withWork returns command with -work after go test -json.
func withWork(command string) string {
	return "go test -json -work" + strings.TrimPrefix(command, "go test -json")
}

// hasWord reports whether command holds word as a whole word.
func hasWord(command, word string) bool {
	for _, w := range strings.Fields(command) {
		if w == word || strings.HasPrefix(w, word+"=") {
			return true
		}
	}
	return false
}

// maxTestMain bounds how much of a _testmain.go is read: its imports are
// at the top.
const maxTestMain = 64 << 10

// testMainImport matches the import of the package under test, or of
// its external test package, in a _testmain.go that go test generated.
var testMainImport = regexp.MustCompile(`^\t_(x?test) "([A-Za-z0-9][A-Za-z0-9._~/+-]*)"$`)

// GoTestBinary returns the host path of the test binary of the package
// importPath that the last go test -json build in ws linked, when that
// build failed and no build of go test -json ran in ws since, and ok.
// The work directory is the build's to write: only a regular file in
// one of its action directories, beside a _testmain.go that imports the
// package, is taken, and the binary runs in the sandbox, as the build
// did.
func (e *Executor) GoTestBinary(ws, importPath string) (string, bool) {
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real // as Run keys it
	}
	dir := e.goWorkKept(ws)
	if dir == "" || importPath == "" {
		return "", false
	}
	works, _ := filepath.Glob(filepath.Join(dir, "go-build*"))
	if len(works) != 1 {
		return "", false
	}
	// The build wrote all of it: a folder that is a symlink is not followed.
	if fi, err := os.Lstat(works[0]); err != nil || !fi.IsDir() {
		return "", false
	}
	actions, err := readDirCapped(works[0], maxWorkActions)
	if err != nil {
		return "", false
	}
	for _, a := range actions {
		if !a.IsDir() || !strings.HasPrefix(a.Name(), "b") {
			continue
		}
		adir := filepath.Join(works[0], a.Name())
		if !testMainOf(filepath.Join(adir, "_testmain.go"), importPath) {
			continue
		}
		entries, err := os.ReadDir(adir)
		if err != nil {
			return "", false
		}
		for _, f := range entries {
			if f.Type().IsRegular() && strings.HasSuffix(f.Name(), ".test") {
				return filepath.Join(adir, f.Name()), true
			}
		}
		return "", false
	}
	return "", false
}

// maxWorkActions bounds the entries of a work directory read: go makes
// one per action of the build, a few thousand for a large module.
const maxWorkActions = 100000

// readDirCapped reads at most max entries of dir; a directory that holds
// more is refused.
func readDirCapped(dir string, max int) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(max + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(entries) > max {
		return nil, fmt.Errorf("%s holds more than %d entries", dir, max)
	}
	return entries, nil
}

// testMainOf reports whether the file at p is a regular file that
// imports importPath as the package under test (or importPath_test as
// its external tests).
func testMainOf(p, importPath string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxTestMain))
	for sc.Scan() {
		m := testMainImport.FindStringSubmatch(sc.Text())
		switch {
		case m == nil:
			continue
		case m[1] == "test" && m[2] == importPath:
			return true
		case m[1] == "xtest" && m[2] == importPath+"_test":
			return true
		}
	}
	return false
}

// workLine is how go test -json -work names its work directory: the first
// event it prints.
func workLine(dir string) []byte {
	return []byte(`{"ImportPath":"","Action":"build-output","Output":"WORK=` + jsonString(dir) + `/go-build`)
}

// jsonString is s as it reads inside a JSON string (a path: escapes for
// '"' and '\' only matter).
func jsonString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return strings.ReplaceAll(s, `"`, `\"`)
}

// dropWorkLine removes from log the line -work added (see workLine); the
// rest is the build's own output.
func dropWorkLine(log []byte, dir string) []byte {
	prefix := workLine(dir)
	start := 0
	for start < len(log) {
		end := bytes.IndexByte(log[start:], '\n')
		if end < 0 {
			end = len(log)
		} else {
			end += start + 1
		}
		if bytes.HasPrefix(log[start:end], prefix) {
			return append(log[:start:start], log[end:]...)
		}
		start = end
	}
	return log
}

// workLineFilter passes a build's output on without the line -work
// added. It holds back at most one line, the one being written.
type workLineFilter struct {
	w       io.Writer
	prefix  []byte
	line    []byte // the start of the current line, while it may be the work line
	done    bool   // the work line was dropped, or can no longer come
	passing bool   // the current line is not the work line: pass it on
}

func newWorkLineFilter(w io.Writer, dir string) *workLineFilter {
	return &workLineFilter{w: w, prefix: workLine(dir)}
}

func (f *workLineFilter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !f.done {
		chunk := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			chunk = p[:i+1]
		}
		p = p[len(chunk):]
		ended := chunk[len(chunk)-1] == '\n'
		if f.passing {
			if _, err := f.w.Write(chunk); err != nil {
				return n, err
			}
			f.passing = !ended
			continue
		}
		f.line = append(f.line, chunk...)
		head := f.line[:min(len(f.line), len(f.prefix))]
		switch {
		case bytes.HasPrefix(f.prefix, head) && len(f.line) >= len(f.prefix) && ended:
			f.line, f.done = nil, true // the work line: dropped
		case bytes.HasPrefix(f.prefix, head) && !ended:
			// It may yet be the work line: held back.
		default:
			if _, err := f.w.Write(f.line); err != nil {
				return n, err
			}
			f.line, f.passing = f.line[:0], !ended
		}
	}
	if len(p) > 0 {
		if _, err := f.w.Write(p); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Flush passes on a line held back at the end of the output.
func (f *workLineFilter) Flush() error {
	if len(f.line) == 0 || f.done {
		return nil
	}
	_, err := f.w.Write(f.line)
	f.line = nil
	return err
}

// keptDirLocked returns this Executor's kept directory in repoDir, made
// up on first use; e.mu must be held.
func (e *Executor) keptDirLocked(repoDir string) string {
	dir, ok := e.kept[repoDir]
	if !ok {
		dir = filepath.Join(repoDir, keptDir, rand.Text())
		e.kept[repoDir] = dir
	}
	return dir
}

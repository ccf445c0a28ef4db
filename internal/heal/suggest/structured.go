package suggest

import (
	"context"
	"crypto/sha256"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
)

// cached is the parsed output of one structured re-run, valid for a file
// as long as the file still has the content it had then.
type cached struct {
	sugs   []logparse.Suggestion
	syms   []logparse.MissingSymbol
	diags  []logparse.Diagnostic
	hashes map[string][32]byte
}

// rerun is one structured re-run: the command (run from the workspace
// root) and how the Parser reads its log.
type rerun struct {
	key   string
	cmd   string
	parse func(log string) ([]logparse.Suggestion, []logparse.MissingSymbol)
	// diags reads the diagnostics of a re-run whose tool gives text only.
	diags func(log string) []logparse.Diagnostic
}

// structured returns the suggestions of a structured re-run for the
// group's file, when its language has one and an Executor is set.
func (f *Fixer) structured(ctx context.Context, in heal.FixInput, reports []contract.BugReport) ([]logparse.Suggestion, error) {
	c, err := f.rerunFor(ctx, in, reports)
	return c.sugs, err
}

// rerunFor runs (or takes from the cache) the structured re-run for the
// file of in. It returns an empty result when there is none; the error is
// only the context's.
func (f *Fixer) rerunFor(ctx context.Context, in heal.FixInput, reports []contract.BugReport) (cached, error) {
	if f.Executor == nil {
		return cached{}, nil
	}
	if !compileErrors(reports) {
		return cached{}, nil
	}
	r, ok := rerunOf(in.Workspace, in.Path, in.Content, reports)
	if !ok {
		return cached{}, nil
	}
	f.mu.Lock()
	c, hit := f.cache[r.key]
	f.mu.Unlock()
	if hit && c.hashes[in.Path] == sha256.Sum256([]byte(in.Content)) {
		return c, nil
	}
	out, err := f.Executor.Run(ctx, contract.ExecutorInput{WorkspacePath: in.Workspace, ResolvedBuildCommand: r.cmd, TimeoutSeconds: f.TimeoutSeconds})
	if ctx.Err() != nil {
		return cached{}, ctx.Err()
	}
	if err != nil {
		return cached{}, nil // the re-run could not start: no structured suggestions
	}
	c = cached{}
	if r.parse != nil {
		c.sugs, c.syms = r.parse(out.BuildLog)
	}
	if r.diags != nil {
		c.diags = r.diags(out.BuildLog)
	}
	c.hashes = hashFiles(in.Workspace, touched(c.sugs, c.syms, in.Path))
	f.mu.Lock()
	if f.cache == nil {
		f.cache = map[string]cached{}
	}
	f.cache[r.key] = c
	f.mu.Unlock()
	return c, nil
}

// hashFiles hashes the workspace files paths names. The names come from a
// compiler's output: each must stay inside the workspace once links are
// followed, and only a regular file that is not a link is read.
func hashFiles(ws string, paths []string) map[string][32]byte {
	out := map[string][32]byte{}
	for _, p := range paths {
		abs, err := heal.Confine(ws, p)
		if err != nil {
			continue
		}
		if b, err := safefile.ReadOpts(abs, safefile.MaxSource, safefile.Options{NoFollow: true}); err == nil {
			out[p] = sha256.Sum256(b)
		}
	}
	return out
}

func touched(sugs []logparse.Suggestion, syms []logparse.MissingSymbol, self string) []string {
	seen := map[string]bool{self: true}
	out := []string{self}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, s := range sugs {
		add(s.File)
	}
	for _, s := range syms {
		add(s.File)
	}
	return out
}

// rerunOf picks the structured re-run for a file: go build's every
// type error (-gcflags=-e) for Go, cargo's JSON for Rust,
// the C compiler's parseable fix-its for C and C++, javac's "symbol:"
// lines for Java, eslint's JSON for a file eslint reported.
func rerunOf(ws, file, content string, reports []contract.BugReport) (rerun, bool) {
	switch ext(file) {
	case ".rs":
		dir, ok := upTo(ws, path.Dir(file), "Cargo.toml")
		if !ok {
			return rerun{}, false
		}
		args := "cargo check --message-format=json --color never"
		if top := strings.SplitN(strings.TrimPrefix(strings.TrimPrefix(file, dir), "/"), "/", 2)[0]; top == "tests" || top == "benches" || top == "examples" {
			args = "cargo check --all-targets --message-format=json --color never"
		}
		root := filepath.Join(ws, filepath.FromSlash(dir))
		return rerun{key: "cargo:" + dir, cmd: cdCmd(dir, args), parse: func(log string) ([]logparse.Suggestion, []logparse.MissingSymbol) {
			// rustc's paths are relative to the cargo workspace's root,
			// which may be above the crate: take the folder, from the
			// crate's up, where the file exists.
			sugs := logparse.ParseRustJSON(log, root)
			for i := range sugs {
				base := existingBase(ws, dir, sugs[i].File)
				sugs[i].File = path.Join(base, sugs[i].File)
				for j := range sugs[i].Edits {
					sugs[i].Edits[j].File = path.Join(base, sugs[i].Edits[j].File)
				}
			}
			return sugs, nil
		}}, true
	case ".go":
		dir := path.Dir(file)
		if reportedBy(reports, "go vet") {
			return goVetRerun(ws, dir), true
		}
		args := "go build -gcflags=-e -o /dev/null ."
		if strings.HasSuffix(file, "_test.go") {
			args = "go vet ."
		}
		root := filepath.Join(ws, filepath.FromSlash(dir))
		return rerun{key: "go:" + dir, cmd: cdCmd(dir, args), diags: func(log string) []logparse.Diagnostic {
			ds := logparse.ParseGoDiagnostics(log, root)
			for i := range ds {
				ds[i].File = path.Join(dir, ds[i].File)
			}
			return ds
		}}, true
	case ".c", ".cc", ".cpp", ".cxx", ".c++", ".m":
		cc := "${CC:-cc}"
		if ext(file) != ".c" && ext(file) != ".m" {
			cc = "${CXX:-c++}"
		}
		cmd := cc + " -fsyntax-only -fdiagnostics-parseable-fixits -I" + quote(path.Dir(file)) + " -I."
		for _, d := range headerDirs(ws) {
			cmd += " -I" + quote(d)
		}
		cmd += " " + quote("./"+file)
		return rerun{key: "cc:" + file, cmd: cmd, parse: func(log string) ([]logparse.Suggestion, []logparse.MissingSymbol) {
			return logparse.ParseFixits(log, ws), nil
		}}, true
	case ".java":
		src := javaSourceRoot(file, content)
		if strings.HasSuffix(src, "src/test/java") {
			// Maven and Gradle tests see the main sources.
			src += ":" + strings.TrimSuffix(src, "src/test/java") + "src/main/java"
		}
		cmd := `d=$(mktemp -d) || exit 3; javac -d "$d" -Xmaxerrs 500 -proc:none -sourcepath ` + quote(src) + " " + quote("./"+file) + `; rc=$?; rm -rf "$d"; exit $rc`
		return rerun{key: "javac:" + file, cmd: cmd, parse: func(log string) ([]logparse.Suggestion, []logparse.MissingSymbol) {
			return nil, logparse.ParseJavacSymbols(log, ws)
		}}, true
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		if reportedBy(reports, "tsc") {
			dir, ok := upTo(ws, path.Dir(file), "tsconfig.json")
			if !ok {
				return rerun{}, false
			}
			bin := "tsc"
			if _, err := os.Stat(filepath.Join(ws, "node_modules", ".bin", "tsc")); err == nil {
				bin = "node_modules/.bin/tsc"
				if dir != "." {
					bin = strings.Repeat("../", strings.Count(dir, "/")+1) + bin
				}
			}
			root := filepath.Join(ws, filepath.FromSlash(dir))
			return rerun{key: "tsc:" + dir, cmd: cdCmd(dir, quote(bin)+" --noEmit --pretty false -p ."), parse: func(log string) ([]logparse.Suggestion, []logparse.MissingSymbol) {
				return prefix(dir, logparse.ParseTscHints(log, root)), nil
			}}, true
		}
		if !reportedBy(reports, "eslint") {
			return rerun{}, false
		}
		bin := "node_modules/.bin/eslint"
		if _, err := os.Stat(filepath.Join(ws, filepath.FromSlash(bin))); err != nil {
			bin = "eslint"
		}
		return rerun{key: "eslint:" + file, cmd: bin + " --format json -- " + quote(file), parse: func(log string) ([]logparse.Suggestion, []logparse.MissingSymbol) {
			return logparse.ParseESLintJSON(log, ws), nil
		}}, true
	}
	return rerun{}, false
}

func reportedBy(reports []contract.BugReport, tool string) bool {
	for _, r := range reports {
		if r.Tool == tool {
			return true
		}
	}
	return false
}

// upTo walks up from dir (repo-relative) to the workspace root looking
// for a file named marker, and returns the folder holding it.
func upTo(ws, dir, marker string) (string, bool) {
	for {
		if _, err := os.Stat(filepath.Join(ws, filepath.FromSlash(dir), marker)); err == nil {
			return dir, true
		}
		if dir == "." || dir == "/" || dir == "" {
			return "", false
		}
		dir = path.Dir(dir)
	}
}

// prefix makes the paths of suggestions read relative to a subfolder
// relative to the workspace.
func prefix(dir string, sugs []logparse.Suggestion) []logparse.Suggestion {
	if dir == "." {
		return sugs
	}
	for i := range sugs {
		sugs[i].File = path.Join(dir, sugs[i].File)
		for j := range sugs[i].Edits {
			sugs[i].Edits[j].File = path.Join(dir, sugs[i].Edits[j].File)
		}
	}
	return sugs
}

func cdCmd(dir, cmd string) string {
	if dir == "." {
		return cmd
	}
	return "cd " + quote(dir) + " && " + cmd
}

// quote quotes s for the POSIX shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var reJavaPackage = lazyre.New(`(?m)^\s*package\s+([\w.]+)\s*;`)

// javaSourceRoot is the folder that holds the root of the file's package:
// src/main/java for src/main/java/a/b/C.java in package a.b.
func javaSourceRoot(file, content string) string {
	dir := path.Dir(file)
	m := reJavaPackage.FindStringSubmatch(content)
	if m == nil {
		return dir
	}
	pkg := strings.ReplaceAll(m[1], ".", "/")
	if dir == pkg {
		return "."
	}
	if strings.HasSuffix(dir, "/"+pkg) {
		return strings.TrimSuffix(dir, "/"+pkg)
	}
	return dir
}

// headerDirs lists the project's folders that hold C or C++ headers (at
// most 32, build output and dependency folders skipped), for the include
// path of a one-file re-run that does not know the build's own flags.
func headerDirs(ws string) []string {
	seen := map[string]bool{}
	var out []string
	n := 0
	_ = filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= 32 || n > 50000 {
			return filepath.SkipAll
		}
		n++
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "target", "build", "out", "vendor", "third_party", ".cache":
				if p != ws {
					return filepath.SkipDir
				}
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".h", ".hh", ".hpp", ".hxx":
			rel, err := filepath.Rel(ws, filepath.Dir(p))
			if err == nil && rel != "." && !seen[rel] {
				seen[rel] = true
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	return out
}

// compileErrors reports whether some report is not a failing test: the
// compilers have nothing to say about a test's assertion.
func compileErrors(reports []contract.BugReport) bool {
	for _, r := range reports {
		if r.TestName == nil || *r.TestName == "" {
			return true
		}
	}
	return false
}

// existingBase returns the first folder, from dir up to the workspace
// root, under which rel names an existing file (dir when none does).
func existingBase(ws, dir, rel string) string {
	for d := dir; ; d = path.Dir(d) {
		if isFile(filepath.Join(ws, filepath.FromSlash(path.Join(d, rel)))) {
			return d
		}
		if d == "." || d == "/" || d == "" {
			return dir
		}
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

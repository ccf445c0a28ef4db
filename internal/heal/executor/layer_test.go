package executor_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/sandbox"
)

// compiles is the script that builds the module and prints how many
// packages the compiler was run for (go build -x names each run), then
// where GOCACHE points.
const compiles = `n=$(go build -x ./... 2>&1 | grep -c '/compile '); echo "compiled $n"`

// TestBuildsReuseTheLayer runs the builds of a heal, with the real bwrap
// and Go, on a cold Go cache of the user's: the first build compiles, the
// second (the heal's verify build) and a later heal's compile nothing,
// because salve's layer of the Go build cache kept the first one's output;
// the user's cache stays empty. A file the build plants in its GOCACHE is
// seen by the next build of the same repository (the accepted trade-off),
// never by another repository's.
func TestBuildsReuseTheLayer(t *testing.T) {
	if (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
		t.Skip("bwrap unavailable here (scripts/executor/setup.sh installs bubblewrap)")
	}
	if !lookPath("go") {
		t.Skip("go is not installed here")
	}
	userCache := filepath.Join(t.TempDir(), "go-build")
	if err := os.Mkdir(userCache, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", userCache)
	t.Setenv("GOFLAGS", "")
	cacheDir := t.TempDir()
	module := func(remote string) string {
		ws := t.TempDir()
		goModule(t, ws)
		gitInit(t, ws, remote)
		return ws
	}
	ws, other := module("https://example.com/acme/leaf.git"), module("https://example.com/acme/other.git")
	heal := func() *executor.Executor {
		return executor.New(executor.Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true,
			CacheDir: cacheDir, RunDir: filepath.Join(t.TempDir(), "run")})
	}
	build := func(ex *executor.Executor, ws, script string) string {
		t.Helper()
		out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: script, TimeoutSeconds: 120})
		if err != nil {
			t.Fatal(err)
		}
		return out.BuildLog
	}
	first := heal()
	if log := build(first, ws, compiles+"; echo planted > \"$GOCACHE/planted\""); !strings.HasPrefix(log, "compiled ") || strings.HasPrefix(log, "compiled 0\n") {
		t.Fatalf("the first build compiled nothing, or failed:\n%s", log)
	}
	layer := filepath.Join(executor.RepoCacheDir(cacheDir, "https://example.com/acme/leaf"), "layer", "go-build")
	if entries, err := os.ReadDir(layer); err != nil || len(entries) == 0 {
		t.Errorf("salve's layer holds nothing after the first build: %v %v", entries, err)
	}
	tests := []struct {
		name string
		ex   *executor.Executor
		ws   string
		want string
	}{
		{"the heal's next build", first, ws, "compiled 0\nplanted\n"},
		{"a later heal of the repository", heal(), ws, "compiled 0\nplanted\n"},
		{"another repository", heal(), other, "missing\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := build(tt.ex, tt.ws, compiles+`; cat "$GOCACHE/planted" 2>/dev/null || echo missing`)
			if tt.ws == other {
				log = log[strings.Index(log, "\n")+1:] // it compiles: its own layer is cold
			}
			if log != tt.want {
				t.Errorf("log %q, want %q", log, tt.want)
			}
		})
	}
	if entries, err := os.ReadDir(userCache); err != nil || len(entries) != 0 {
		t.Errorf("the user's Go cache was written: %v %v", entries, err)
	}
	if left, _ := filepath.Glob(filepath.Join(cacheDir, "repos", "*", "scratch", "*")); len(left) != 0 {
		t.Errorf("scratch layers left behind: %v", left)
	}
}

// treeOf lists the files under dir with their contents.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %q %v\n", p[len(dir):], data, err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// goModule writes a one-package Go module into dir.
func goModule(t *testing.T, dir string) {
	t.Helper()
	mustWriteFile(t, filepath.Join(dir, "go.mod"), "module example.com/leaf\n\ngo 1.21\n")
	mustWriteFile(t, filepath.Join(dir, "leaf.go"), "package leaf\n\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n")
}

// gitInit makes dir a git repository with one commit of what it holds, a
// root commit of its own (its message names dir), and remote as its
// origin when given.
func gitInit(t *testing.T, dir, remote string) {
	t.Helper()
	if !lookPath("git") {
		t.Skip("git is not installed here")
	}
	cmds := [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init " + dir + " " + t.Name()}}
	if remote != "" {
		cmds = append(cmds, []string{"remote", "add", "origin", remote})
	}
	for _, args := range cmds {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestRepoIdentity names repositories by their remote, however spelled,
// else by their root commit, and never by their folder: two repositories
// created one after the other at the same path have two identities.
func TestRepoIdentity(t *testing.T) {
	ctx := context.Background()
	id := func(dir string) string {
		t.Helper()
		got, err := executor.RepoIdentity(ctx, dir, "", "")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	a, b := t.TempDir(), t.TempDir()
	mustWriteFile(t, filepath.Join(a, "f"), "a\n")
	mustWriteFile(t, filepath.Join(b, "f"), "b\n")
	gitInit(t, a, "https://user:secret@Example.com/acme/app.git")
	gitInit(t, b, "git@example.com:acme/app")
	if got := id(a); got != "https://example.com/acme/app" {
		t.Errorf("identity of a clone: %q", got)
	}
	if got := id(b); got != "ssh://example.com/acme/app" {
		t.Errorf("identity of an ssh clone: %q", got)
	}
	// No remote: the root commit; another repository at the same path has
	// another.
	same := filepath.Join(t.TempDir(), "workspace")
	mustWriteFile(t, filepath.Join(same, "f"), "first\n")
	gitInit(t, same, "")
	first := id(same)
	if !strings.HasPrefix(first, "root:") {
		t.Errorf("identity without a remote: %q", first)
	}
	if err := os.RemoveAll(same); err != nil {
		t.Fatal(err)
	}
	mustWriteFile(t, filepath.Join(same, "f"), "second\n")
	gitInit(t, same, "")
	if second := id(same); second == first || !strings.HasPrefix(second, "root:") {
		t.Errorf("two repositories at one path: %q then %q", first, second)
	}
	if _, err := executor.RepoIdentity(ctx, t.TempDir(), "", ""); err == nil {
		t.Errorf("a folder without git has an identity")
	}
}

// TestLayerBelongsToTheRepository builds, with the real bwrap and Go, a
// repository that plants a file in its GOCACHE, then a different
// repository checked out at the same path (a reused CI workspace): it
// reads nothing of the first one's layer. A second clone of the first
// repository, elsewhere, shares its layer.
func TestLayerBelongsToTheRepository(t *testing.T) {
	if (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
		t.Skip("bwrap unavailable here (scripts/executor/setup.sh installs bubblewrap)")
	}
	if !lookPath("go") {
		t.Skip("go is not installed here")
	}
	t.Setenv("GOCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "")
	cacheDir := t.TempDir()
	workspace := filepath.Join(t.TempDir(), "workspace")
	checkout := func(dir, remote string) {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		goModule(t, dir)
		gitInit(t, dir, remote)
	}
	build := func(ws, script string) string {
		t.Helper()
		ex := executor.New(executor.Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true, CacheDir: cacheDir, RunDir: filepath.Join(t.TempDir(), "run")})
		out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: script, TimeoutSeconds: 120})
		if err != nil {
			t.Fatal(err)
		}
		return out.BuildLog
	}
	const look = `cat "$GOCACHE/planted" 2>/dev/null || echo missing`
	checkout(workspace, "https://example.com/acme/first.git")
	if log := build(workspace, `echo planted > "$GOCACHE/planted"; `+look); log != "planted\n" {
		t.Fatalf("the first repository's build: %q", log)
	}
	tests := []struct {
		name, remote string
		elsewhere    bool
		want         string
	}{
		{"another repository at the same path", "https://example.com/acme/second.git", false, "missing\n"},
		{"another repository without a remote at the same path", "", false, "missing\n"},
		{"the first repository cloned elsewhere", "https://example.com/acme/first", true, "planted\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := workspace
			if tt.elsewhere {
				dir = filepath.Join(t.TempDir(), "clone")
			}
			checkout(dir, tt.remote)
			if log := build(dir, look); log != tt.want {
				t.Errorf("log %q, want %q", log, tt.want)
			}
		})
	}
}

// TestUntrustedChangeLeavesTheLayer builds a trusted change, then an
// untrusted one, of one repository: the untrusted builds read what the
// trusted one left in the repository's layer and share what they write
// among themselves, but the repository's layer is byte for byte what it
// was, and after Discard a later trusted build sees nothing they wrote.
func TestUntrustedChangeLeavesTheLayer(t *testing.T) {
	if (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
		t.Skip("bwrap unavailable here (scripts/executor/setup.sh installs bubblewrap)")
	}
	if !(sandbox.Bwrap{}).Detect(context.Background()).Features.Overlay {
		t.Skip("overlays cannot be mounted in a bwrap sandbox here: no layer stacks")
	}
	t.Setenv("GOCACHE", t.TempDir())
	cacheDir := t.TempDir()
	ws := t.TempDir()
	mustWriteFile(t, filepath.Join(ws, "Makefile"), "all:\n\ttrue\n")
	gitInit(t, ws, "https://example.com/acme/app.git")
	newEx := func(untrusted bool) *executor.Executor {
		return executor.New(executor.Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true, CacheDir: cacheDir,
			RunDir: filepath.Join(t.TempDir(), "run"), UntrustedChange: untrusted})
	}
	build := func(ex *executor.Executor, script string) string {
		t.Helper()
		out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: script, TimeoutSeconds: 60})
		if err != nil {
			t.Fatal(err)
		}
		return out.BuildLog
	}
	const look = `for f in trusted untrusted; do cat "$GOCACHE/$f" 2>/dev/null || echo "no $f"; done`
	if log := build(newEx(false), `echo trusted > "$GOCACHE/trusted"; `+look); log != "trusted\nno untrusted\n" {
		t.Fatalf("the trusted build: %q", log)
	}
	layer := filepath.Join(executor.RepoCacheDir(cacheDir, "https://example.com/acme/app"), "layer")
	before := treeOf(t, layer)
	heal := newEx(true)
	if log := build(heal, `echo untrusted > "$GOCACHE/untrusted"; echo forged > "$GOCACHE/trusted"; `+look); log != "forged\nuntrusted\n" {
		t.Fatalf("the untrusted build: %q", log)
	}
	// What a build changes of a lower layer is dropped; what it adds is
	// kept, in the throw-away layer.
	if log := build(heal, look); log != "trusted\nuntrusted\n" {
		t.Errorf("the untrusted heal's next build: %q, want its first one's new entry", log)
	}
	if after := treeOf(t, layer); after != before {
		t.Errorf("an untrusted build changed the repository's layer:\nbefore %s\nafter %s", before, after)
	}
	if err := heal.Discard(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(layer), "untrusted", "*")); len(left) != 0 {
		t.Errorf("Discard left %v", left)
	}
	if log := build(newEx(false), look); log != "trusted\nno untrusted\n" {
		t.Errorf("a trusted build after the untrusted heal: %q", log)
	}
}

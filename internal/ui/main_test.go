package ui_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/testbin"
	"github.com/salve-dev/salve/internal/testrepo"
)

var binDir string

func TestMain(m *testing.M) {
	testbin.Main(m, "ui-test-bin-", &binDir)
}

var buildOnce sync.Once
var buildErr error

// binaries builds salve and git_agent once for the tests that need them.
func binaries(t *testing.T) (salve, gitAgent string) {
	t.Helper()
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", binDir+string(filepath.Separator), "github.com/salve-dev/salve/cmd/salve", "github.com/salve-dev/salve/cmd/git_agent",
			"github.com/salve-dev/salve/internal/toolrun/internal/fakeaider/cmd/aider")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "salve"), filepath.Join(binDir, "git_agent")
}

// filled is a run store holding a real heal, a real exec and a real tool
// run.
type filled struct {
	st                     *store.Store
	path, repo             string
	healID, execID, toolID string
}

// filledStore heals examples/testdata/go-broken with the real salve binary
// and runs one failing exec of it, both recorded in a fresh store.
func filledStore(t *testing.T) filled {
	t.Helper()
	for _, tool := range []string{"go", "git", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	salve, gitAgent := binaries(t)
	repo := testrepo.Example(t, "go-broken")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=salve", "GIT_AUTHOR_EMAIL=salve@localhost", "GIT_COMMITTER_NAME=salve",
		"GIT_COMMITTER_EMAIL=salve@localhost", "GIT_CONFIG_NOSYSTEM=1", "SALVE_GIT_AGENT="+gitAgent)
	sh := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("%s %v: %v\n%s", name, args, err, stderr)
		}
		return strings.TrimSpace(string(out))
	}
	dbPath := filepath.Join(t.TempDir(), "runs.db")
	sh(salve, "heal", "--workspace", repo, "--isolation", "none", "--store", dbPath, "--cmd", "sh check.sh", "--quiet")
	cmd := exec.Command(salve, "exec", "--workspace", repo, "--isolation", "none", "--store", dbPath, "--cmd", "sh check.sh")
	cmd.Env = env
	_ = cmd.Run() // the build fails: that is the exec we want
	// A tool run through the adapter, with the fake aider first in PATH:
	// one edit in scope, kept, and one outside it, reverted.
	msg := filepath.Join(t.TempDir(), "fix.txt")
	directives := `write sum.go package main\n\n// Sum adds the numbers.\nfunc Sum(xs ...int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}` + "\nwrite notes.txt not\\sasked\\sfor\n"
	if err := os.WriteFile(msg, []byte(directives), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(salve, "tool", "run", "aider", "--store", dbPath, "--cwd", repo, "--model", "gpt-4o", "--message-file", msg, "--", "sum.go")
	cmd.Dir = repo
	cmd.Env = append(env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	_ = cmd.Run() // the out-of-scope write makes it a scope violation
	st, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := filled{st: st, path: dbPath, repo: repo}
	runs, err := st.ListRuns(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		switch r.Kind {
		case store.KindHeal:
			f.healID = r.RunID
		case store.KindExec:
			f.execID = r.RunID
		case store.KindTool:
			f.toolID = r.RunID
		}
	}
	if f.healID == "" || f.execID == "" || f.toolID == "" {
		t.Fatalf("the store lacks a heal or an exec: %+v", runs)
	}
	return f
}

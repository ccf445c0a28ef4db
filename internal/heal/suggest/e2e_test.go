package suggest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/testdirs"
	"github.com/salve-dev/salve/internal/testrepo"

	"github.com/salve-dev/salve/internal/sandbox"
)

// These tests run the salve binary as a user would ("salve heal" in a git
// repository, no LLM configured) on small broken projects built with the
// real toolchains, and check that the rules and suggest tiers heal them
// with minimal diffs, leaving the user's checkout untouched.

var (
	salveBin, gitAgentBin string
	binDir                string
	buildOnce             sync.Once
	buildErr              error
)

func TestMain(m *testing.M) {
	clean := testdirs.Isolate()
	code := m.Run()
	clean()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binaries builds salve and git_agent once, for the tests that run them.
func binaries(t *testing.T) {
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "suggest-e2e-bin-")
		if buildErr != nil {
			return
		}
		for _, name := range []string{"salve", "git_agent"} {
			bin := filepath.Join(binDir, name)
			env := sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"CGO_ENABLED": "0"})
			res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "go", Args: []string{"build", "-o", bin, "github.com/salve-dev/salve/cmd/" + name}, Env: env, Timeout: 10 * time.Minute})
			if err != nil || res.ExitCode != 0 {
				buildErr = fmt.Errorf("build %s: %v %s", name, err, res.Stderr)
				return
			}
		}
		salveBin, gitAgentBin = filepath.Join(binDir, "salve"), filepath.Join(binDir, "git_agent")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// healCase is one broken project and what healing it must give.
type healCase struct {
	name  string
	tools []string
	files map[string]string
	cmd   string
	// fixers is --fixers; empty means salve's default (rules, suggest).
	fixers string
	// want lists, per fixed bug, "fixer: text of its fix line".
	want []string
	// maxLines bounds the changed lines (added + removed) of the heal.
	maxLines int
}

func TestHealEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds the binaries and runs real toolchains")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // at most GOMAXPROCS cases at once
			for _, tool := range c.tools {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed (scripts/heal/setup.sh installs it): this test needs it", tool)
				}
			}
			binaries(t)
			runCase(t, c)
		})
	}
}

func runCase(t *testing.T, c healCase) {
	repo := filepath.Join(t.TempDir(), "repo")
	for p, body := range c.files {
		f := filepath.Join(repo, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "broken")
	// The user's own work in progress, which heal must not see or touch.
	if err := os.WriteFile(filepath.Join(repo, "NOTES.txt"), []byte("untracked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := userState(t, repo)

	resultsPath := filepath.Join(t.TempDir(), "results.json")
	args := []string{"heal", "--workspace", repo, "--cmd", c.cmd, "--no-store", "--git-agent", gitAgentBin, "--isolation", "none", "--results", resultsPath, "--max-iterations", "4"}
	if c.fixers != "" {
		args = append(args, "--fixers", c.fixers)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, salveBin, args...)
	cmd.Env = append(sandbox.AllowedEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@localhost")
	cmd.Env = dropEnv(cmd.Env, "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "TMPDIR")
	// The heal worktree goes to a folder of this test's own, out of reach
	// of other programs that tidy the shared temp folder.
	cmd.Env = append(cmd.Env, "TMPDIR="+t.TempDir())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	b, rerr := os.ReadFile(resultsPath)
	if rerr != nil {
		t.Fatalf("no results (%v): %v\nstdout:\n%s\nstderr:\n%s", err, rerr, stdout.String(), tail(stderr.String()))
	}
	var res results.Results
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if err != nil || res.Outcome != results.OutcomeGreen {
		t.Fatalf("heal: %v, outcome %s (%s)\nstdout:\n%s\nstderr:\n%s", err, res.Outcome, res.Reason, stdout.String(), tail(stderr.String()))
	}
	var got []string
	for _, bug := range res.Bugs {
		if bug.Status == results.StatusFixed {
			got = append(got, bug.Fixer+": "+bug.Line)
		}
	}
	for _, w := range c.want {
		if !containsLine(got, w) {
			t.Errorf("no fixed bug reads %q; fixed:\n%s\nstdout:\n%s", w, strings.Join(got, "\n"), stdout.String())
		}
	}
	if after := userState(t, repo); after != before {
		t.Errorf("the user's checkout changed")
	}
	// A fresh clone of the heal branch passes the command, and the diff is
	// small.
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, "", "clone", "-q", "--branch", res.Branch, repo, clone)
	check := exec.CommandContext(ctx, "sh", "-c", c.cmd)
	check.Dir, check.Env = clone, sandbox.AllowedEnv()
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("the healed branch still fails: %v\n%s", err, out)
	}
	diff := git(t, repo, "diff", "--numstat", "main", res.Branch)
	n := 0
	for _, l := range strings.Split(diff, "\n") {
		var a, d int
		var f string
		if _, err := fmt.Sscanf(l, "%d %d %s", &a, &d, &f); err == nil {
			n += a + d
		}
	}
	if n == 0 || n > c.maxLines {
		t.Errorf("the heal changed %d lines, want 1..%d:\n%s", n, c.maxLines, git(t, repo, "diff", "main", res.Branch))
	}
}

func containsLine(got []string, want string) bool {
	for _, g := range got {
		if strings.Contains(g, want) {
			return true
		}
	}
	return false
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(sandbox.AllowedEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@localhost", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// userState hashes everything of the user's checkout heal must leave
// alone: every file outside .git, the index, HEAD, the refs other than
// the heal branches, and git status.
func userState(t *testing.T, repo string) string {
	t.Helper()
	return testrepo.State(t, repo, "refs/heads/salve/")
}

func dropEnv(env []string, keys ...string) []string {
	out := env[:0]
	for _, kv := range env {
		keep := true
		for _, k := range keys {
			if strings.HasPrefix(kv, k+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

func tail(s string) string {
	if len(s) > 6000 {
		return "..." + s[len(s)-6000:]
	}
	return s
}

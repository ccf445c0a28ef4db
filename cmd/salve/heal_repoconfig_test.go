package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// configRepo returns the broken Go project with two commits: a base whose
// .salve.yml is base (the target branch, as origin/base), then the change
// under heal, which rewrites it to change (empty: leaves it alone).
func configRepo(t *testing.T, base, change string) (repo, baseCommit string) {
	t.Helper()
	repo = testrepo.Example(t, "go-broken")
	broken := git(t, repo, "rev-parse", "HEAD")
	// The base: the configuration alone, on an empty tree.
	git(t, repo, "checkout", "-q", "--orphan", "base")
	git(t, repo, "rm", "-rq", "--cached", ".")
	if err := os.WriteFile(filepath.Join(repo, ".salve.yml"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", ".salve.yml")
	git(t, repo, "-c", "user.name=salve", "-c", "user.email=salve@localhost", "commit", "-qm", "configure salve")
	baseCommit = git(t, repo, "rev-parse", "HEAD")
	// The change: the broken project on top, and the file rewritten.
	git(t, repo, "checkout", "-q", broken, "--", ".")
	if change != "" {
		if err := os.WriteFile(filepath.Join(repo, ".salve.yml"), []byte(change), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "add", "-A")
	git(t, repo, "-c", "user.name=salve", "-c", "user.email=salve@localhost", "commit", "-qm", "the change under heal")
	git(t, repo, "branch", "-qf", "main")
	git(t, repo, "checkout", "-q", "main")
	// CI names the base as the target branch, which the checkout has.
	git(t, repo, "update-ref", "refs/remotes/origin/base", baseCommit)
	return repo, baseCommit
}

// TestHealRepoConfig runs salve heal on repositories whose .salve.yml
// differs between the base and the change under heal: the base's is the
// one applied (its build command and protected path), whatever the change
// writes; results.json records it; heal: false and skip_branches in the
// base turn salve off; an unknown key is bad input naming the key and its
// line; a flag wins over the file.
func TestHealRepoConfig(t *testing.T) {
	needTools(t, "go", "git")
	salve, gitAgent := mcpBinaries(t)
	heal1 := func(t *testing.T, repo string, args ...string) (sandbox.Result, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "results.json")
		res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Env: ciFreeEnv(t, gitAgent, "GITHUB_BASE_REF=base"), Timeout: 5 * time.Minute,
			Args: append([]string{"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--results", out}, args...)})
		if err != nil {
			t.Fatal(err)
		}
		return res, out
	}
	t.Run("the base's file applies, not the change's", func(t *testing.T) {
		repo, base := configRepo(t, "command: sh check.sh\nprotected_paths: [sum.go]\n", "heal: false\n")
		res, out := heal1(t, repo)
		if res.ExitCode != 1 {
			t.Fatalf("exit %d, want 1 (red: the fix of sum.go is refused):\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		var r results.Results
		b, err := os.ReadFile(out)
		if err != nil || json.Unmarshal(b, &r) != nil {
			t.Fatalf("results.json: %v", err)
		}
		rc := r.RepoConfig
		if rc == nil || rc.Rev != base || !strings.Contains(strings.Join(rc.Applied, "\n"), "command: sh check.sh") ||
			!strings.Contains(strings.Join(rc.Applied, "\n"), "protected_paths: sum.go") || r.Command != "sh check.sh" {
			t.Fatalf("repo_config %+v, command %q; want the base's (%s)", rc, r.Command, base)
		}
		refused, fixedMain := false, false
		for _, bug := range r.Bugs {
			for _, a := range bug.Attempts {
				refused = refused || (bug.Bug.FilePath == "sum.go" && strings.Contains(a.Reason, integrity.RuleProtectedPath))
			}
			fixedMain = fixedMain || (bug.Bug.FilePath == "main.go" && bug.Status == results.StatusFixed)
		}
		if !refused || !fixedMain {
			t.Errorf("sum.go refused by %s: %v; main.go fixed: %v\n%s", integrity.RuleProtectedPath, refused, fixedMain, res.Stdout)
		}
	})
	t.Run("a flag wins over the file", func(t *testing.T) {
		repo, _ := configRepo(t, "command: exit 7\nheal: true\n", "")
		res, out := heal1(t, repo, "--cmd", "sh check.sh", "--fixers", "rules")
		b, _ := os.ReadFile(out)
		var r results.Results
		_ = json.Unmarshal(b, &r)
		if r.RepoConfig == nil || strings.Join(r.RepoConfig.Overridden, ",") != "command" || r.Command != "sh check.sh" {
			t.Fatalf("exit %d, repo_config %+v, command %q\n%s", res.ExitCode, r.RepoConfig, r.Command, res.Stderr)
		}
	})
	for _, tc := range []struct {
		name, base string
		code       int
		stderr     string
	}{
		{"heal: false", "heal: false\n", 0, "nothing to do: .salve.yml says heal: false"},
		{"a skipped branch", "skip_branches: [main]\n", 0, "skips branch main"},
		{"an unknown key", "command: make\nprotect_paths: [x]\n", 2, `line 2: unknown key "protect_paths"; did you mean "protected_paths"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := configRepo(t, tc.base, "")
			res, out := heal1(t, repo)
			if res.ExitCode != tc.code || !strings.Contains(string(res.Stderr), tc.stderr) {
				t.Fatalf("exit %d, want %d with %q:\n%s", res.ExitCode, tc.code, tc.stderr, res.Stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("results were written by a heal that did not run")
			}
		})
	}
}

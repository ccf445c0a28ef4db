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

	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// gitCommit commits the work tree of repo with message.
func gitCommit(t *testing.T, repo, message string) string {
	t.Helper()
	git(t, repo, "add", "-A")
	git(t, repo, "-c", "user.name=dev", "-c", "user.email=dev@localhost", "commit", "-qm", message)
	return git(t, repo, "rev-parse", "HEAD")
}

// authorOffRepo returns a repository whose main (base) holds .salve.yml
// with base, and whose branch feature, checked out, holds the change:
// first the author's own commit setting heal: false, then the commit
// under heal, the broken project. HEAD^1 is the author's commit.
func authorOffRepo(t *testing.T, base string) (repo, baseCommit string) {
	t.Helper()
	repo = testrepo.Example(t, "go-broken")
	if err := os.WriteFile(filepath.Join(repo, ".salve.yml"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	baseCommit = gitCommit(t, repo, "configure salve")
	git(t, repo, "branch", "-M", "main")
	git(t, repo, "checkout", "-qb", "feature")
	if err := os.WriteFile(filepath.Join(repo, ".salve.yml"), []byte("heal: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCommit(t, repo, "turn salve off")
	if err := os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCommit(t, repo, "the change under heal")
	return repo, baseCommit
}

// ciFreeEnv is mcpEnv without the CI's own variables (the test may itself
// run in CI), plus extra.
func ciFreeEnv(t *testing.T, gitAgent string, extra ...string) []string {
	var env []string
	for _, kv := range mcpEnv(t, gitAgent) {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "CI_") || strings.HasPrefix(k, "GITLAB_") || k == "CI" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// TestHealRepoConfigNeverFromTheChange runs salve heal on real
// repositories whose HEAD^1 is the author's own commit setting heal:
// false. The rules come from the target branch, fetched from origin when
// the checkout lacks it; when there is no target branch to be had, the
// heal runs under the defaults, says so on stderr and in results.json,
// and never reads the author's commit.
func TestHealRepoConfigNeverFromTheChange(t *testing.T) {
	needTools(t, "go", "git")
	salve, gitAgent := mcpBinaries(t)
	const rules = "command: sh check.sh\nprotected_paths: [sum.go]\n"
	run := func(t *testing.T, dir string, env []string) (sandbox.Result, *results.Results) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "results.json")
		res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Env: env, Timeout: 5 * time.Minute,
			Args: []string{"heal", "--workspace", dir, "--isolation", "none", "--no-store", "--results", out, "--fixers", "rules"}})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res.Stderr), "nothing to do") {
			t.Fatalf("the change's own heal: false turned salve off:\n%s", res.Stderr)
		}
		b, err := os.ReadFile(out)
		var r results.Results
		if err != nil || json.Unmarshal(b, &r) != nil {
			t.Fatalf("exit %d, results.json: %v\n%s", res.ExitCode, err, res.Stderr)
		}
		return res, &r
	}

	t.Run("target branch fetched from origin", func(t *testing.T) {
		src, base := authorOffRepo(t, rules)
		bare := filepath.Join(t.TempDir(), "origin.git")
		git(t, src, "clone", "-q", "--bare", src, bare)
		work := filepath.Join(t.TempDir(), "work")
		git(t, filepath.Dir(work), "clone", "-q", "--single-branch", "--branch", "feature", "file://"+bare, work)
		if out := git(t, work, "branch", "-r"); strings.Contains(out, "origin/main") {
			t.Fatalf("the checkout already has origin/main: %s", out)
		}
		_, r := run(t, work, ciFreeEnv(t, gitAgent, "GITHUB_BASE_REF=main", "GITHUB_HEAD_REF=feature"))
		if rc := r.RepoConfig; rc == nil || rc.Rev != base || r.Command != "sh check.sh" ||
			!strings.Contains(strings.Join(rc.Applied, "\n"), "protected_paths: sum.go") {
			t.Fatalf("repo_config %+v, command %q; want the base's (%s)", rc, r.Command, base)
		}
	})

	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"merge request whose target branch cannot be had", []string{"CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=feature"}},
		{"pull request whose target branch cannot be had", []string{"GITHUB_BASE_REF=main", "GITHUB_HEAD_REF=feature"}},
		{"a push, no target branch named", nil},
		{"the target branch is the change itself", []string{"GITHUB_BASE_REF=feature"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := authorOffRepo(t, rules)
			if tc.env != nil && strings.HasSuffix(tc.env[0], "=feature") {
				git(t, repo, "update-ref", "refs/remotes/origin/feature", "HEAD")
			}
			res, r := run(t, repo, ciFreeEnv(t, gitAgent, tc.env...))
			rc := r.RepoConfig
			if rc == nil || rc.Rev != "" || rc.Unread == "" || len(rc.Applied) != 0 || r.Command == "sh check.sh" {
				t.Fatalf("repo_config %+v, command %q; want none read, and why", rc, r.Command)
			}
			if !strings.Contains(string(res.Stderr), ".salve.yml not read") || !strings.Contains(string(res.Stderr), "defaults") {
				t.Fatalf("stderr does not say the rules were not read:\n%s", res.Stderr)
			}
		})
	}
}

package heal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

const prToken = "ghp_e2eTokenThatMustNotLeak0123"

// TestHealOpensPullRequest runs `salve heal --push --pr` as CI would: a
// broken project whose origin is a local bare repository, and a local
// server speaking the GitHub (then GitLab) REST API. The heal branch must
// be pushed, one request opened with the fix line in its body, the
// SARIF report written, and the token must appear nowhere in the output.
func TestHealOpensPullRequest(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	for _, kind := range []string{"github", "gitlab"} {
		t.Run(kind, func(t *testing.T) {
			srv := forgetest.New(prToken)
			defer srv.Close()
			repo := testrepo.Example(t, "go-broken")
			remote := filepath.Join(t.TempDir(), "remote.git")
			run(t, repo, "git", "init", "-q", "--bare", remote)
			run(t, repo, "git", "remote", "add", "origin", remote)
			run(t, repo, "git", "config", "protocol.file.allow", "always")
			before := userState(t, repo)
			out := t.TempDir()
			sarifPath, ghPath := filepath.Join(out, "sub", "salve.sarif"), filepath.Join(out, "annotations.txt")
			env := map[string]string{"SALVE_GIT_AGENT": gitAgent}
			args := []string{"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", "sh check.sh",
				"--push", "--pr", "--report", "sarif=" + sarifPath, "--report", "github=" + ghPath}
			if kind == "github" {
				srv.AddRepo("github", "acme/app")
				env["GITHUB_API_URL"], env["GITHUB_REPOSITORY"], env["GITHUB_TOKEN"], env["GITHUB_REF_NAME"] = srv.GitHubAPI(), "acme/app", prToken, "main"
			} else {
				srv.AddRepo("gitlab", "acme/app")
				env["GITLAB_CI"], env["CI_API_V4_URL"], env["CI_PROJECT_ID"], env["GITLAB_TOKEN"], env["CI_COMMIT_BRANCH"] = "true", srv.GitLabAPI(), "acme/app", prToken, "main"
			}
			base := sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
			res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: args, Env: sandbox.MergeEnv(base, env), Timeout: 5 * time.Minute})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("exit %d (%v):\n%s\n%s", res.ExitCode, err, res.Stdout, res.Stderr)
			}
			for _, out := range [][]byte{res.Stdout, res.Stderr} {
				if strings.Contains(string(out), prToken) {
					t.Fatal("the token appears in salve's output")
				}
			}
			prs := srv.PRs(kind, "acme/app")
			if len(prs) != 1 {
				t.Fatalf("%d requests opened, want 1", len(prs))
			}
			pr := prs[0]
			if pr.Base != "main" || !strings.HasPrefix(pr.Head, "salve/") || pr.Draft {
				t.Errorf("request %+v", pr)
			}
			if got := run(t, remote, "git", "rev-parse", "refs/heads/"+pr.Head); got == "" {
				t.Error("the request's head branch is not on the remote")
			}
			if !strings.HasPrefix(pr.Title, "salve: fix ") || !strings.Contains(pr.Body, results.PullRequestMarker) ||
				!strings.Contains(pr.Body, "→ Fix:") || !strings.Contains(pr.Body, "| status |") || !strings.Contains(pr.Body, "file(s) changed") {
				t.Errorf("title %q, body:\n%s", pr.Title, pr.Body)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
				if strings.Contains(line, "→ Fix:") && !strings.Contains(line, "not fixed") && !strings.Contains(pr.Body, line) {
					t.Errorf("fix line %q is not in the body", line)
				}
			}
			if !strings.Contains(string(res.Stderr), "opened "+kind+" request #1") {
				t.Errorf("stderr does not report the request:\n%s", res.Stderr)
			}
			if gh, err := os.ReadFile(ghPath); err != nil || !strings.HasPrefix(string(gh), "::error file=") {
				t.Errorf("github annotations %v: %s", err, gh)
			}
			sarif, err := os.ReadFile(sarifPath)
			if err != nil {
				t.Fatal(err)
			}
			var log struct {
				Version string
				Runs    []struct{ Results []json.RawMessage }
			}
			if err := json.Unmarshal(sarif, &log); err != nil || log.Version != "2.1.0" || len(log.Runs[0].Results) == 0 {
				t.Errorf("sarif %v: %s", err, sarif)
			}
			for _, c := range srv.Calls() {
				if !strings.Contains(c.Auth, prToken) {
					t.Errorf("%s %s without the token", c.Method, c.Path)
				}
			}
			if userState(t, repo) != before {
				t.Error("the user's checkout changed")
			}
		})
	}
}

// TestHealPRFlags checks the flag errors that must stop a heal before it
// starts.
func TestHealPRFlags(t *testing.T) {
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	repo := testrepo.Example(t, "c-broken")
	env := sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"SALVE_GIT_AGENT": gitAgent})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--pr"}, "add --push"},
		{[]string{"--push", "--pr-on-red"}, "--pr-on-red needs --pr"},
		{[]string{"--push", "--pr", "--forge", "bitbucket"}, "--forge"},
		{[]string{"--report", "xml"}, "unknown report format"},
		{[]string{"--report", "sarif", "--report", "sarif"}, "two reports"},
		{[]string{"--push", "--pr", "--pr-base", "a..b"}, "not a branch name"},
	} {
		args := append([]string{"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", "true"}, tc.args...)
		res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: args, Env: env, Timeout: time.Minute})
		if err != nil || res.ExitCode != 2 || !strings.Contains(string(res.Stderr), tc.want) {
			t.Errorf("%v: exit %d (%v), stderr %q; want 2 with %q", tc.args, res.ExitCode, err, res.Stderr, tc.want)
		}
	}
}

// TestHealCINoSignal: the remote CI never reports a check for the pushed
// fix (a workflow waiting for approval): the heal ends "no_signal" with
// exit 4, never green.
func TestHealCINoSignal(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	srv := forgetest.New(prToken)
	defer srv.Close()
	srv.AddRepo("github", "acme/app")
	repo, _ := ciRepo(t)
	resultsPath := filepath.Join(t.TempDir(), "results.json")
	args := []string{"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", "sh check.sh", "--push",
		"--ci", "github", "--ci-timeout", "1s", "--results", resultsPath}
	env := map[string]string{"SALVE_GIT_AGENT": gitAgent, "GITHUB_API_URL": srv.GitHubAPI(), "GITHUB_REPOSITORY": "acme/app", "GITHUB_TOKEN": prToken}
	base := sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: args, Env: sandbox.MergeEnv(base, env), Timeout: 5 * time.Minute})
	if err != nil || res.ExitCode != 4 {
		t.Fatalf("exit %d (%v), want 4:\n%s", res.ExitCode, err, res.Stderr)
	}
	b, err := os.ReadFile(resultsPath)
	if err != nil {
		t.Fatal(err)
	}
	var r results.Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Outcome != results.OutcomeNoSignal || r.CI == nil || r.CI.Green || !r.CI.NoSignal || !strings.Contains(r.Reason, "no signal") {
		t.Errorf("outcome %q, reason %q, ci %+v", r.Outcome, r.Reason, r.CI)
	}
}

// TestHealPRRerunUpdatesSameRequest heals twice in fresh clones, as two CI
// runs would, with the base moving in between: the second run replaces the
// heal branch of the open request (with a lease on the commit the request
// is at) and updates that request, never opening a second one.
func TestHealPRRerunUpdatesSameRequest(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	srv := forgetest.New(prToken)
	defer srv.Close()
	srv.AddRepo("github", "acme/app")
	seed, remote := ciRepo(t)
	srv.SetHeadSHA(func(branch string) string {
		return run(t, remote, "git", "rev-parse", "refs/heads/"+branch)
	})
	env := map[string]string{"SALVE_GIT_AGENT": gitAgent, "GITHUB_API_URL": srv.GitHubAPI(), "GITHUB_REPOSITORY": "acme/app",
		"GITHUB_TOKEN": prToken, "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"}
	base := sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
	healClone := func(name string) {
		t.Helper()
		clone := filepath.Join(t.TempDir(), name)
		run(t, seed, "git", "clone", "-q", "-b", "main", remote, clone)
		run(t, clone, "git", "config", "protocol.file.allow", "always")
		res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: []string{"heal", "--workspace", clone, "--isolation", "none",
			"--no-store", "--cmd", "sh check.sh", "--push", "--pr"}, Env: sandbox.MergeEnv(base, env), Timeout: 5 * time.Minute})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: exit %d (%v):\n%s", name, res.ExitCode, err, res.Stderr)
		}
	}
	healClone("first")
	first := run(t, remote, "git", "rev-parse", "refs/heads/salve/heal-pr/main")
	// The base moves on: someone pushes to main.
	if err := os.WriteFile(filepath.Join(seed, "NOTES.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, seed, "git", "add", "NOTES.md")
	run(t, seed, "git", "commit", "-qm", "notes")
	run(t, seed, "git", "push", "-q", "origin", "main")
	newMain := run(t, remote, "git", "rev-parse", "refs/heads/main")
	healClone("second")
	second := run(t, remote, "git", "rev-parse", "refs/heads/salve/heal-pr/main")
	prs := srv.PRs("github", "acme/app")
	if len(prs) != 1 || prs[0].Head != "salve/heal-pr/main" {
		t.Fatalf("requests: %+v", prs)
	}
	if second == first {
		t.Error("the second run did not replace the heal branch")
	}
	if got := run(t, remote, "git", "merge-base", second, newMain); got != newMain {
		t.Error("the replaced heal branch does not start from the new base")
	}
	var patches int
	for _, c := range srv.Calls() {
		if c.Method == "PATCH" {
			patches++
		}
	}
	if patches != 1 {
		t.Errorf("%d updates of the request, want 1", patches)
	}
}

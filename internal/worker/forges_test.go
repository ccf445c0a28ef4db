package worker

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/service"
)

func TestSplitRepo(t *testing.T) {
	tests := []struct{ in, host, path string }{
		{"https://github.com/acme/api.git", "github.com", "/acme/api"},
		{"https://gitlab.example/group/sub/proj.git/", "gitlab.example", "/group/sub/proj"},
		{"ssh://git@gitlab.com:2222/group/proj.git", "gitlab.com", "/group/proj"},
		{"git@github.com:acme/api.git", "github.com", "/acme/api"},
		{"file:///srv/git/acme/api.git", "", "/srv/git/acme/api"},
		{"/srv/git/acme/api", "", "/srv/git/acme/api"},
		{"https://github.com/acme/../../etc/x", "github.com", "/etc/x"},
	}
	for _, tt := range tests {
		host, p, err := splitRepo(tt.in)
		if err != nil || host != tt.host || p != tt.path {
			t.Errorf("splitRepo(%q) = %q, %q, %v; want %q, %q", tt.in, host, p, err, tt.host, tt.path)
		}
	}
	for _, bad := range []string{"api", "https://github.com/api", "/api"} {
		if _, _, err := splitRepo(bad); !errors.Is(err, ErrNoForge) {
			t.Errorf("splitRepo(%q) = %v, want ErrNoForge", bad, err)
		}
	}
}

// TestForgeFor: the job's source decides, then the URL's host, then the
// one forge the worker has a token for.
func TestForgeFor(t *testing.T) {
	both := &Forges{GitHubToken: "gh", GitLabToken: "gl", GitLabAPI: "https://git.corp.example/api/v4"}
	ghOnly := &Forges{GitHubToken: "gh"}
	glOnly := &Forges{GitLabToken: "gl"}
	ghe := &Forges{GitHubToken: "gh", GitHubAPI: "https://ghe.corp.example/api/v3", GitLabToken: "gl"}
	tests := []struct {
		f            *Forges
		repo, source string
		want         string // forge name, or "" for an error
	}{
		{both, "https://github.com/acme/api.git", "api", "github"},
		{both, "https://git.corp.example/group/sub/proj.git", "api", "gitlab"},
		{both, "https://gitlab.com/group/proj.git", "", "gitlab"},
		{both, "/srv/git/acme/api", "github", "github"},
		{both, "/srv/git/group/proj", "gitlab", "gitlab"},
		{both, "/srv/git/acme/api", "api", ""},
		{both, "https://code.example/acme/api.git", "", ""},
		{ghOnly, "/srv/git/acme/api", "api", "github"},
		{ghOnly, "https://gitlab.com/group/proj.git", "", ""},
		{glOnly, "/srv/git/group/proj", "", "gitlab"},
		{ghe, "https://ghe.corp.example/acme/api.git", "", "github"},
		{&Forges{}, "https://github.com/acme/api.git", "", ""},
	}
	for _, tt := range tests {
		f, err := tt.f.For(tt.repo, tt.source, 0)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("For(%q, %q) = %s, want an error", tt.repo, tt.source, f.Name())
		case tt.want != "" && err != nil:
			t.Errorf("For(%q, %q): %v", tt.repo, tt.source, err)
		case tt.want != "" && f.Name() != tt.want:
			t.Errorf("For(%q, %q) = %s, want %s", tt.repo, tt.source, f.Name(), tt.want)
		}
	}
}

// forgeRepo makes a bare repository at .../acme/api.git with a main branch
// and returns its path.
func forgeRepo(t *testing.T) string {
	t.Helper()
	bare := bareRepo(t)
	repo := filepath.Join(t.TempDir(), "acme", "api.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", bare, repo).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	return repo
}

// pushes is a heal that commits and pushes the job's branch, as a green
// heal does.
func pushes(_ context.Context, s Spec) (*results.Results, error) {
	for _, a := range [][]string{{"checkout", "-q", "-b", s.Branch}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "fix"}, {"push", "-q", "origin", s.Branch}} {
		if out, err := exec.Command("git", append([]string{"-C", s.Dir}, a...)...).CombinedOutput(); err != nil {
			return nil, &failure{err: fmt.Errorf("git %v: %w: %s", a, err, out)}
		}
	}
	head, err := exec.Command("git", "-C", s.Dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return nil, &failure{err: err}
	}
	h := strings.TrimSpace(string(head))
	return &results.Results{Outcome: results.OutcomeGreen, Commits: []results.Commit{{Hash: h}}, HeadCommit: h, Branch: s.Branch, Pushed: true}, nil
}

// TestRequestOncePerJob: a job asking for a pull request gets one on
// GitHub, or a merge request on GitLab, opened with the worker's token;
// opening it again (a redelivery) updates it and opens no second one.
func TestRequestOncePerJob(t *testing.T) {
	for _, kind := range []string{"github", "gitlab"} {
		t.Run(kind, func(t *testing.T) {
			srv := forgetest.New("worker-token")
			defer srv.Close()
			repo := forgeRepo(t)
			key := "acme/api"
			fs := &Forges{GitHubAPI: srv.GitHubAPI(), GitLabAPI: srv.GitLabAPI()}
			if kind == "github" {
				fs.GitHubToken = "worker-token"
			} else {
				key = strings.TrimPrefix(strings.TrimSuffix(repo, ".git"), "/")
				fs.GitLabToken = "worker-token"
			}
			srv.AddRepo(kind, key)
			q := newQueue(t, ackWait, 3)
			w := &Worker{Queue: q, Name: "w", Heal: pushes, Forges: fs}
			runWorker(t, w)
			j, _ := q.Submit(context.Background(), service.Request{Repo: repo, PR: true, Source: kind})
			got := waitFinal(t, q, j.ID)
			prs := srv.PRs(kind, key)
			if got.Status != service.StatusGreen || got.PullRequest == "" || len(prs) != 1 {
				t.Fatalf("job %s %q request %q warnings %v, %d opened", got.Status, got.Error, got.PullRequest, got.Warnings, len(prs))
			}
			if prs[0].Head != got.Branch || prs[0].Base != "main" || !prs[0].Open {
				t.Errorf("request %+v, want %s into main, open", prs[0], got.Branch)
			}
			// The body is salve heal --pr's (internal/heal/publish).
			if title, body := results.PullRequestText(got.Results, ""); prs[0].Title != title || prs[0].Body != body {
				t.Errorf("request %q %q, want the heal's own title and body %q", prs[0].Title, prs[0].Body, title)
			}
			pr, warnings := w.publish(context.Background(), service.Message{ID: j.ID, Request: j.Request}, got.Results, nil)
			if len(warnings) != 0 || pr == nil || pr.URL != got.PullRequest || pr.Created || len(srv.PRs(kind, key)) != 1 {
				t.Fatalf("second open: %+v %v, %d opened", pr, warnings, len(srv.PRs(kind, key)))
			}
			for _, c := range srv.Calls() {
				if !strings.Contains(c.Auth, "worker-token") {
					t.Fatalf("call %s %s carried %q", c.Method, c.Path, c.Auth)
				}
			}
		})
	}
}

// TestRequestWithoutToken: a worker without a token says so on the job,
// and the heal still counts.
func TestRequestWithoutToken(t *testing.T) {
	repo := forgeRepo(t)
	q := newQueue(t, ackWait, 3)
	runWorker(t, &Worker{Queue: q, Name: "w2", Heal: pushes})
	j, _ := q.Submit(context.Background(), service.Request{Repo: repo, Ref: "main", PR: true})
	got := waitFinal(t, q, j.ID)
	if got.Status != service.StatusGreen || got.PullRequest != "" || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "no forge token") {
		t.Fatalf("tokenless: %s %q %v", got.Status, got.PullRequest, got.Warnings)
	}
}

// FuzzSplitRepo: a repository URL from a webhook or the API never panics,
// and a path it accepts is clean, absolute and has an owner and a name.
func FuzzSplitRepo(f *testing.F) {
	for _, s := range []string{"https://github.com/acme/api.git", "git@gitlab.com:g/s/p.git", "file:///a/b", "/a/b/c", "ssh://h:22/x/y", "%zz", "https://h/../../x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, repo string) {
		_, p, err := splitRepo(repo)
		if err != nil {
			return
		}
		if !strings.HasPrefix(p, "/") || strings.Count(p, "/") < 2 || filepath.Clean(p) != p || strings.Contains(p, "/../") {
			t.Fatalf("splitRepo(%q) path %q", repo, p)
		}
		fs := &Forges{GitHubToken: "a", GitLabToken: "b"}
		_, _ = fs.For(repo, "github", 0)
		_, _ = fs.For(repo, "gitlab", 0)
	})
}

// TestBranchCommitFromThePush: the job's branch commit is the one the
// heal's push left on the remote; a heal that committed but did not push
// ends the job in error; one with nothing to commit leaves no branch.
func TestBranchCommitFromThePush(t *testing.T) {
	for _, tt := range []struct {
		name   string
		heal   Healer
		status service.Status
		err    string
		pushed bool
	}{
		{"pushed", pushes, service.StatusGreen, "", true},
		{"committed, not pushed", func(context.Context, Spec) (*results.Results, error) {
			return &results.Results{Outcome: results.OutcomeGreen, Commits: []results.Commit{{Hash: "abc"}}, HeadCommit: "abc"}, nil
		}, service.StatusError, "did not push", false},
		{"nothing to commit", func(context.Context, Spec) (*results.Results, error) {
			return &results.Results{Outcome: results.OutcomeGreen}, nil
		}, service.StatusGreen, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo := bareRepo(t)
			q := newQueue(t, ackWait, 1)
			runWorker(t, &Worker{Queue: q, Name: "w", Heal: tt.heal})
			j, _ := q.Submit(context.Background(), service.Request{Repo: repo})
			got := waitFinal(t, q, j.ID)
			if got.Status != tt.status || !strings.Contains(got.Error, tt.err) {
				t.Fatalf("job %s %q, want %s %q", got.Status, got.Error, tt.status, tt.err)
			}
			remote, _ := gitTry(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+service.BranchFor(j.ID))
			if tt.pushed && (remote == "" || got.BranchCommit != remote) || !tt.pushed && got.BranchCommit != "" {
				t.Errorf("the job says its branch is at %q; the remote's is at %q", got.BranchCommit, remote)
			}
		})
	}
}

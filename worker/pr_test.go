package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/heal"
	"github.com/salve-dev/salve/service"
)

// fakeGitHub speaks the two pull-request calls of GitHub's REST API.
type fakeGitHub struct {
	mu      sync.Mutex
	prs     map[string]PullRequest // by head
	creates int
	auth    []string
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	if r.URL.Path != "/repos/acme/api/pulls" {
		http.Error(w, `{"message":"Not Found"}`, 404)
		return
	}
	switch r.Method {
	case "GET":
		out := []PullRequest{}
		if pr, ok := f.prs[r.URL.Query().Get("head")]; ok {
			out = append(out, pr)
		}
		_ = json.NewEncoder(w).Encode(out)
	case "POST":
		var in struct{ Head, Base, Title string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		if in.Base != "main" || !strings.HasPrefix(in.Head, "salve/heal-job-") {
			http.Error(w, `{"message":"Validation Failed"}`, 422)
			return
		}
		f.creates++
		pr := PullRequest{URL: "https://github.example/acme/api/pull/" + in.Head, Number: f.creates}
		f.prs["acme:"+in.Head] = pr
		w.WriteHeader(201)
		_ = json.NewEncoder(w).Encode(pr)
	}
}

func TestOwnerRepo(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/acme/api.git": "acme/api",
		"git@github.com:acme/api.git":     "acme/api",
		"file:///srv/git/acme/api.git":    "acme/api",
		"/srv/git/acme/api":               "acme/api",
	} {
		o, n, err := OwnerRepo(in)
		if err != nil || o+"/"+n != want {
			t.Errorf("%s: %s/%s %v, want %s", in, o, n, err, want)
		}
	}
	if _, _, err := OwnerRepo("api"); err == nil {
		t.Error("a bare name has no owner")
	}
}

// TestPullRequestOncePerJob: a job asking for a pull request gets one,
// opened with the worker's token; opening it again (a redelivery) finds it
// and opens no second one.
func TestPullRequestOncePerJob(t *testing.T) {
	gh := &fakeGitHub{prs: map[string]PullRequest{}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	q := newQueue(t, 2*time.Second, 3)
	bare := bareRepo(t)
	repo := filepath.Join(t.TempDir(), "acme", "api.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", bare, repo).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	pushes := func(_ context.Context, s Spec) (*heal.Results, error) {
		for _, a := range [][]string{{"checkout", "-q", "-b", s.Branch}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "fix"}, {"push", "-q", "origin", s.Branch}} {
			if out, err := exec.Command("git", append([]string{"-C", s.Dir}, a...)...).CombinedOutput(); err != nil {
				return nil, &failure{err: fmt.Errorf("git %v: %w: %s", a, err, out)}
			}
		}
		return &heal.Results{Outcome: heal.OutcomeGreen, Commits: []heal.Commit{{}}}, nil
	}
	w := &Worker{Queue: q, Name: "w", Heal: pushes, PR: &PullRequests{API: srv.URL, Token: "worker-token"}}
	runWorker(t, w)
	j, _ := q.Submit(context.Background(), service.Request{Repo: repo, PR: true})
	got := waitFinal(t, q, j.ID)
	if got.Status != service.StatusGreen || got.PullRequest == "" || gh.creates != 1 {
		t.Fatalf("job %s %q pr %q warnings %v, %d created", got.Status, got.Error, got.PullRequest, got.Warnings, gh.creates)
	}
	if pr, err := w.openPR(context.Background(), service.Message{ID: j.ID, Request: j.Request}); err != nil || pr.URL != got.PullRequest || gh.creates != 1 {
		t.Fatalf("second open: %v %v, %d created", pr, err, gh.creates)
	}
	for _, a := range gh.auth {
		if a != "Bearer worker-token" {
			t.Fatalf("authorization %q", a)
		}
	}
	// A worker without a token says so on the job, and the heal still counts.
	q2 := newQueue(t, 2*time.Second, 3)
	runWorker(t, &Worker{Queue: q2, Name: "w2", Heal: pushes})
	j2, _ := q2.Submit(context.Background(), service.Request{Repo: repo, Ref: "main", PR: true})
	got2 := waitFinal(t, q2, j2.ID)
	if got2.Status != service.StatusGreen || got2.PullRequest != "" || len(got2.Warnings) != 1 || !strings.Contains(got2.Warnings[0], "no GitHub token") {
		t.Fatalf("tokenless: %s %q %v", got2.Status, got2.PullRequest, got2.Warnings)
	}
}

package ci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal"
)

const sha = "0123456789abcdef0123456789abcdef01234567"

// fakeGitHub speaks the two documented endpoints. Each poll of check-runs
// advances to the next state of script (the last one repeats).
type fakeGitHub struct {
	t      *testing.T
	mu     sync.Mutex
	polls  int
	script []func(w http.ResponseWriter, page int)
	status string // JSON of the combined status
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if got := r.Header.Get("Authorization"); got != "Bearer secret-token" {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`)
		return
	}
	if r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") == "" {
		f.t.Errorf("missing GitHub headers: %v", r.Header)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	switch r.URL.Path {
	case "/repos/acme/app/commits/" + sha + "/check-runs":
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		f.mu.Lock()
		step := f.script[min(f.polls, len(f.script)-1)]
		if page <= 1 {
			f.polls++
		}
		f.mu.Unlock()
		step(w, page)
	case "/repos/acme/app/commits/" + sha + "/status":
		st := f.status
		if st == "" {
			st = `{"state":"pending","sha":"` + sha + `","total_count":0,"statuses":[]}`
		}
		fmt.Fprint(w, st)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
	}
}

func runs(rs ...string) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) {
		var list []map[string]any
		for i, r := range rs {
			status, conclusion, _ := strings.Cut(r, "/")
			var c any
			if conclusion != "" {
				c = conclusion
			}
			list = append(list, map[string]any{"id": i + 1, "name": fmt.Sprintf("check-%d", i+1), "head_sha": sha, "status": status, "conclusion": c, "html_url": "https://github.com/acme/app/runs/1"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"total_count": len(list), "check_runs": list})
	}
}

func notFound(w http.ResponseWriter, _ int) {
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, `{"message":"No commit found for SHA: `+sha+`"}`)
}

// manyRuns serves n successful check runs, 100 per page.
func manyRuns(n int) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, page int) {
		var list []map[string]any
		for i := (page - 1) * 100; i < min(n, page*100); i++ {
			list = append(list, map[string]any{"id": i, "name": fmt.Sprint("c", i), "head_sha": sha, "status": "completed", "conclusion": "success"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"total_count": n, "check_runs": list})
	}
}

func TestGitHubVerdict(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  []func(http.ResponseWriter, int)
		status  string
		token   string
		green   bool
		nosig   bool
		detail  string
		errWant string
		polls   int
	}{
		{name: "pending then success", script: []func(http.ResponseWriter, int){runs("queued"), runs("in_progress", "completed/success"), runs("completed/success", "completed/skipped")},
			green: true, detail: "2 checks passed", polls: 3},
		{name: "failure", script: []func(http.ResponseWriter, int){runs("completed/success", "completed/failure")},
			detail: "failed: check-2 (failure)", polls: 1},
		{name: "commit not known yet", script: []func(http.ResponseWriter, int){notFound, runs("completed/success")},
			green: true, polls: 2},
		{name: "statuses too", script: []func(http.ResponseWriter, int){runs("completed/success")},
			status: `{"state":"failure","sha":"` + sha + `","total_count":1,"statuses":[{"state":"failure","context":"ci/jenkins","description":"tests failed"}]}`,
			detail: "failed: ci/jenkins (failure)", polls: 1},
		{name: "paginated", script: []func(http.ResponseWriter, int){manyRuns(150)}, green: true, detail: "150 checks passed", polls: 1},
		{name: "bad token", token: "wrong", script: []func(http.ResponseWriter, int){runs("completed/success")}, errWant: "HTTP 401: Bad credentials"},
		{name: "never settles", script: []func(http.ResponseWriter, int){runs("in_progress")}, nosig: true, detail: "not settled after 200ms: waiting for check-1 (in_progress)", polls: -1},
		{name: "waits for approval", script: []func(http.ResponseWriter, int){runs("waiting")}, nosig: true, detail: "waiting for check-1 (waiting)", polls: -1},
		{name: "no checks ever", script: []func(http.ResponseWriter, int){runs()}, nosig: true, detail: "no checks reported yet", polls: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeGitHub{t: t, script: tc.script, status: tc.status}
			srv := httptest.NewServer(f)
			defer srv.Close()
			token := tc.token
			if token == "" {
				token = "secret-token"
			}
			g := &GitHub{BaseURL: srv.URL, Owner: "acme", Repo: "app", Token: token, Interval: time.Millisecond, Timeout: 200 * time.Millisecond}
			v, err := g.Verdict(context.Background(), heal.CITarget{Commit: sha, Pushed: true})
			if tc.errWant != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWant) || !errors.Is(err, ErrCI) {
					t.Fatalf("err = %v, want ErrCI containing %q", err, tc.errWant)
				}
				if strings.Contains(err.Error(), token) {
					t.Fatal("the token leaked into the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Green != tc.green || v.NoSignal != tc.nosig || !strings.Contains(v.Detail, tc.detail) || v.Source != "github" {
				t.Errorf("verdict %+v, want green=%v no signal=%v detail %q", v, tc.green, tc.nosig, tc.detail)
			}
			if tc.nosig && v.Green {
				t.Error("no signal taken for green")
			}
			if tc.polls >= 0 && f.polls != tc.polls {
				t.Errorf("polled %d times, want %d", f.polls, tc.polls)
			}
		})
	}
}

func TestGitHubNeedsPush(t *testing.T) {
	_, err := (&GitHub{}).Verdict(context.Background(), heal.CITarget{Commit: sha})
	if !errors.Is(err, ErrCI) {
		t.Fatalf("err = %v", err)
	}
}

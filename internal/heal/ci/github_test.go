package ci

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

const sha = "0123456789abcdef0123456789abcdef01234567"

// runs is one poll's check runs, each "status" or "status/conclusion",
// named check-1, check-2, ...
func runs(rs ...string) []forgetest.CommitCheck {
	list := []forgetest.CommitCheck{}
	for i, r := range rs {
		status, conclusion, _ := strings.Cut(r, "/")
		list = append(list, forgetest.CommitCheck{Name: fmt.Sprintf("check-%d", i+1), Status: status, Conclusion: conclusion})
	}
	return list
}

// manyRuns is n successful check runs.
func manyRuns(n int) []forgetest.CommitCheck {
	list := make([]forgetest.CommitCheck, n)
	for i := range list {
		list[i] = forgetest.CommitCheck{Name: fmt.Sprint("c", i), Status: "completed", Conclusion: "success"}
	}
	return list
}

func TestGitHubVerdict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   [][]forgetest.CommitCheck
		statuses []forgetest.CommitStatus
		notYet   int // calls answered 404 before the commit is known
		token    string
		green    bool
		nosig    bool
		detail   string
		errWant  string
		polls    int
	}{
		{name: "pending then success", script: [][]forgetest.CommitCheck{runs("queued"), runs("in_progress", "completed/success"), runs("completed/success", "completed/skipped")},
			green: true, detail: "2 checks passed", polls: 3},
		{name: "failure", script: [][]forgetest.CommitCheck{runs("completed/success", "completed/failure")},
			detail: "failed: check-2 (failure)", polls: 1},
		{name: "commit not known yet", notYet: 1, script: [][]forgetest.CommitCheck{runs("completed/success")},
			green: true, polls: 1},
		{name: "statuses too", script: [][]forgetest.CommitCheck{runs("completed/success")},
			statuses: []forgetest.CommitStatus{{State: "failure", Context: "ci/jenkins", Description: "tests failed"}},
			detail:   "failed: ci/jenkins (failure)", polls: 1},
		{name: "paginated", script: [][]forgetest.CommitCheck{manyRuns(150)}, green: true, detail: "150 checks passed", polls: 1},
		{name: "bad token", token: "wrong", script: [][]forgetest.CommitCheck{runs("completed/success")}, errWant: "401 Bad credentials"},
		{name: "never settles", script: [][]forgetest.CommitCheck{runs("in_progress")}, nosig: true, detail: "not settled after 200ms: waiting for check-1 (in_progress)", polls: -1},
		{name: "waits for approval", script: [][]forgetest.CommitCheck{runs("waiting")}, nosig: true, detail: "waiting for check-1 (waiting)", polls: -1},
		{name: "no checks ever", script: [][]forgetest.CommitCheck{runs()}, nosig: true, detail: "no checks reported yet", polls: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := forgetest.New("secret-token")
			defer srv.Close()
			srv.AddRepo("github", "acme/app")
			srv.ScriptChecks("acme/app", sha, tc.script...)
			srv.SetStatuses("acme/app", sha, tc.statuses...)
			if tc.notYet > 0 {
				srv.Fail("GET /repos/acme/app/commits/"+sha+"/check-runs", forgetest.Fault{Status: 404, Body: `{"message":"No commit found for SHA: ` + sha + `"}`, Times: tc.notYet})
			}
			token := tc.token
			if token == "" {
				token = "secret-token"
			}
			api, err := forge.NewGitHub(forge.GitHubConfig{API: srv.GitHubAPI(), Repo: "acme/app", Token: token})
			if err != nil {
				t.Fatal(err)
			}
			g := &GitHub{API: api, Interval: time.Millisecond, Timeout: 200 * time.Millisecond}
			v, err := g.Verdict(context.Background(), heal.CITarget{Commit: sha, Pushed: true})
			if tc.errWant != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWant) || !errors.Is(err, ErrCI) || !errors.Is(err, forge.ErrAuth) {
					t.Fatalf("err = %v, want ErrCI and forge.ErrAuth containing %q", err, tc.errWant)
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
			if tc.notYet > 0 && countCalls(srv, "/check-runs") < tc.notYet+1 {
				t.Errorf("the check runs were read %d times, want the %d refused reads and one more", countCalls(srv, "/check-runs"), tc.notYet)
			}
			if polls := srv.CheckPolls("acme/app", sha); tc.polls >= 0 && polls != tc.polls {
				t.Errorf("polled %d times, want %d", polls, tc.polls)
			}
		})
	}
}

func countCalls(srv *forgetest.Server, suffix string) int {
	n := 0
	for _, c := range srv.Calls() {
		if strings.HasSuffix(c.Path, suffix) {
			n++
		}
	}
	return n
}

func TestGitHubNeedsPush(t *testing.T) {
	api, err := forge.NewGitHub(forge.GitHubConfig{Repo: "acme/app", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*GitHub{{API: api}, {}} {
		if _, err := g.Verdict(context.Background(), heal.CITarget{Commit: sha}); !errors.Is(err, ErrCI) {
			t.Fatalf("err = %v", err)
		}
	}
}

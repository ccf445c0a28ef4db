package forge_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

const readSHA = "89abcdef0123456789abcdef0123456789abcdef"

// TestCommitReadsTryAgain: the refusals a poll outlives carry
// ErrTryAgain, the others do not, and the token never shows.
func TestCommitReadsTryAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fault  *forgetest.Fault
		token  string
		again  bool
		kind   error
		checks int
	}{
		{name: "read", checks: 2},
		{name: "commit not known", fault: &forgetest.Fault{Status: 404, Body: `{"message":"No commit found for SHA"}`}, again: true, kind: forge.ErrNotFound},
		{name: "unprocessable", fault: &forgetest.Fault{Status: 422, Body: `{"message":"No commit found"}`}, again: true, kind: forge.ErrAPI},
		{name: "server error", fault: &forgetest.Fault{Status: 502, Body: `{"message":"Bad gateway"}`, Times: 9}, again: true, kind: forge.ErrAPI},
		{name: "rate limited", fault: &forgetest.Fault{Status: 429, Header: map[string]string{"Retry-After": "0"}, Times: 9}, again: true, kind: forge.ErrRateLimited},
		{name: "bad token", token: "wrong-token", kind: forge.ErrAuth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := forgetest.New("good-token")
			defer srv.Close()
			srv.AddRepo("github", "acme/app")
			srv.ScriptChecks("acme/app", readSHA, []forgetest.CommitCheck{{Name: "build", Status: "completed", Conclusion: "success"}, {Name: "lint", Status: "queued"}})
			if tc.fault != nil {
				srv.Fail("GET /repos/acme/app/commits/"+readSHA+"/check-runs", *tc.fault)
			}
			token := tc.token
			if token == "" {
				token = "good-token"
			}
			g, err := forge.NewGitHub(forge.GitHubConfig{API: srv.GitHubAPI(), Repo: "acme/app", Token: token})
			if err != nil {
				t.Fatal(err)
			}
			g.Retries = 1
			g.Sleep = func(context.Context, time.Duration) error { return nil }
			runs, err := g.CommitChecks(context.Background(), readSHA)
			if tc.kind == nil {
				if err != nil || len(runs) != tc.checks || runs[0].Conclusion == nil || *runs[0].Conclusion != "success" || runs[1].Conclusion != nil {
					t.Fatalf("runs %+v, err %v", runs, err)
				}
				return
			}
			if err == nil || !errors.Is(err, tc.kind) || errors.Is(err, forge.ErrTryAgain) != tc.again {
				t.Fatalf("err = %v, want %v with try-again %v", err, tc.kind, tc.again)
			}
			if strings.Contains(err.Error(), token) {
				t.Fatal("the token leaked into the error")
			}
		})
	}
}

func TestGitHubFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name      string
		api, repo string
		env       map[string]string
		err       error
		errText   string
	}{
		{name: "token and repo from env", env: map[string]string{"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "acme/app"}},
		{name: "gh token and flag repo", repo: "acme/app", env: map[string]string{"GH_TOKEN": "t"}},
		{name: "api from env", env: map[string]string{"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "acme/app", "GITHUB_API_URL": "https://ghe.example/api/v3"}},
		{name: "no credential", repo: "acme/app", err: forge.ErrAuth},
		{name: "no repository", env: map[string]string{"GITHUB_TOKEN": "t"}, errText: "is not owner/name"},
		{name: "app without key", repo: "acme/app", env: map[string]string{"GITHUB_TOKEN": "t", forge.EnvAppID: "1"}, errText: forge.EnvAppPrivateKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, appID, err := forge.GitHubFromEnv(tc.api, tc.repo, func(k string) string { return tc.env[k] })
			switch {
			case tc.err == nil && tc.errText == "":
				if err != nil || g == nil || appID != "" {
					t.Fatalf("g %v, app %q, err %v", g, appID, err)
				}
			case err == nil || g != nil:
				t.Fatalf("g %v, err %v; want an error", g, err)
			case tc.err != nil && !errors.Is(err, tc.err), tc.errText != "" && !strings.Contains(err.Error(), tc.errText):
				t.Fatalf("err = %v, want %v %q", err, tc.err, tc.errText)
			}
		})
	}
}

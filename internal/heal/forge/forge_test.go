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

const token = "tok-5ecret-value-123"

// kit is one forge under test with its server and the repository key the
// server knows it by.
type kit struct {
	name   string
	srv    *forgetest.Server
	repo   string
	f      forge.Forge
	sleeps *[]time.Duration
}

func kits(t *testing.T, tok string) []kit {
	t.Helper()
	var out []kit
	{
		srv := forgetest.New(token)
		t.Cleanup(srv.Close)
		srv.AddRepo("github", "acme/app")
		g, err := forge.NewGitHub(forge.GitHubConfig{API: srv.GitHubAPI(), Repo: "acme/app", Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		var sl []time.Duration
		g.Sleep = func(_ context.Context, d time.Duration) error { sl = append(sl, d); return nil }
		out = append(out, kit{"github", srv, "acme/app", g, &sl})
	}
	{
		srv := forgetest.New(token)
		t.Cleanup(srv.Close)
		srv.AddRepo("gitlab", "acme/sub/app")
		g, err := forge.NewGitLab(forge.GitLabConfig{API: srv.GitLabAPI(), Project: "acme/sub/app", Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		var sl []time.Duration
		g.Sleep = func(_ context.Context, d time.Duration) error { sl = append(sl, d); return nil }
		out = append(out, kit{"gitlab", srv, "acme/sub/app", g, &sl})
	}
	return out
}

func req() forge.Request {
	return forge.Request{Head: "salve/heal-1", Base: "main", Title: "salve: fix TYPE_ERROR in main.go", Body: "| bug | status |\n|---|---|\n"}
}

func TestOpenThenUpdate(t *testing.T) {
	for _, k := range kits(t, token) {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			pr, err := k.f.OpenOrUpdate(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if !pr.Created || pr.Number != 1 || pr.Head != "salve/heal-1" || pr.Base != "main" || pr.URL == "" {
				t.Errorf("first: %+v", pr)
			}
			r2 := req()
			r2.Body = "updated body"
			pr2, err := k.f.OpenOrUpdate(ctx, r2)
			if err != nil {
				t.Fatal(err)
			}
			if pr2.Created || pr2.Number != 1 {
				t.Errorf("second: %+v", pr2)
			}
			prs := k.srv.PRs(k.name, k.repo)
			if len(prs) != 1 || prs[0].Body != "updated body" || prs[0].Title != req().Title {
				t.Errorf("server holds %+v", prs)
			}
			if err := k.f.Comment(ctx, 1, "healed in [run](x)"); err != nil {
				t.Fatal(err)
			}
			if got := k.srv.PRs(k.name, k.repo)[0].Comments; len(got) != 1 || got[0] != "healed in [run](x)" {
				t.Errorf("comments %q", got)
			}
			found, ok, err := k.f.FindOpen(ctx, "salve/heal-1")
			if err != nil || !ok || found.Number != 1 {
				t.Errorf("FindOpen = %+v, %v, %v", found, ok, err)
			}
			for _, c := range k.srv.Calls() {
				if !strings.Contains(c.Auth, token) {
					t.Errorf("%s %s carried no token", c.Method, c.Path)
				}
			}
		})
	}
}

// TestConcurrentCreate: the look-up finds nothing, but the create is
// refused because another run opened the request meanwhile (GitHub 422,
// GitLab 409); the client updates that one instead of failing.
func TestConcurrentCreate(t *testing.T) {
	for _, k := range kits(t, token) {
		t.Run(k.name, func(t *testing.T) {
			k.srv.AddPR(k.name, k.repo, forgetest.PR{Head: "salve/heal-1", Base: "main", Title: "old"})
			route := "GET /repos/acme/app/pulls"
			if k.name == "gitlab" {
				route = "GET /api/v4/projects/acme%2Fsub%2Fapp/merge_requests"
			}
			k.srv.Fail(route, forgetest.Fault{Status: 200, Body: "[]"})
			pr, err := k.f.OpenOrUpdate(context.Background(), req())
			if err != nil {
				t.Fatal(err)
			}
			if pr.Created || pr.Number != 1 {
				t.Errorf("got %+v", pr)
			}
			if prs := k.srv.PRs(k.name, k.repo); len(prs) != 1 || prs[0].Title != req().Title {
				t.Errorf("server holds %+v", prs)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		fault  forgetest.Fault
		want   error
		sleeps int
		ok     bool
	}{
		{"rate limit with Retry-After, then success", forgetest.Fault{Status: 403, Header: map[string]string{"Retry-After": "7"}, Body: `{"message":"You have exceeded a secondary rate limit"}`}, nil, 1, true},
		{"429 with Retry-After, then success", forgetest.Fault{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: `{"message":"Too Many Requests"}`}, nil, 1, true},
		{"rate limited beyond the retries", forgetest.Fault{Status: 429, Header: map[string]string{"Retry-After": "1"}, Times: 10}, forge.ErrRateLimited, 3, false},
		{"reset too far away", forgetest.Fault{Status: 429, Header: map[string]string{"Retry-After": "3600"}}, forge.ErrRateLimited, 0, false},
		{"server error, then success", forgetest.Fault{Status: 502, Body: "bad gateway"}, nil, 1, true},
		{"forbidden", forgetest.Fault{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}, forge.ErrAuth, 0, false},
		{"validation", forgetest.Fault{Status: 422, Body: `{"message":"Validation Failed","errors":[{"code":"invalid","message":"base is invalid"}]}`}, forge.ErrAPI, 0, false},
	}
	for _, tt := range tests {
		for _, k := range kits(t, token) {
			t.Run(k.name+"/"+tt.name, func(t *testing.T) {
				route := "POST /repos/acme/app/pulls"
				if k.name == "gitlab" {
					route = "POST /api/v4/projects/acme%2Fsub%2Fapp/merge_requests"
				}
				k.srv.Fail(route, tt.fault)
				_, err := k.f.OpenOrUpdate(context.Background(), req())
				if tt.ok != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				if len(*k.sleeps) != tt.sleeps {
					t.Errorf("slept %v, want %d waits", *k.sleeps, tt.sleeps)
				}
				if err != nil && strings.Contains(err.Error(), token) {
					t.Errorf("the token leaked into %v", err)
				}
			})
		}
	}
}

func TestBadTokenAndRepo(t *testing.T) {
	for _, k := range kits(t, "wrong-token") {
		t.Run(k.name+"/bad token", func(t *testing.T) {
			_, err := k.f.OpenOrUpdate(context.Background(), req())
			if !errors.Is(err, forge.ErrAuth) || strings.Contains(err.Error(), "wrong-token") {
				t.Errorf("err = %v", err)
			}
		})
	}
	srv := forgetest.New(token)
	defer srv.Close()
	g, _ := forge.NewGitHub(forge.GitHubConfig{API: srv.GitHubAPI(), Repo: "acme/missing", Token: token})
	if _, err := g.OpenOrUpdate(context.Background(), req()); !errors.Is(err, forge.ErrNotFound) {
		t.Errorf("unknown repository: %v", err)
	}
	gl, _ := forge.NewGitLab(forge.GitLabConfig{API: srv.GitLabAPI(), Project: "acme/missing", Token: token})
	if _, err := gl.OpenOrUpdate(context.Background(), req()); !errors.Is(err, forge.ErrNotFound) {
		t.Errorf("unknown project: %v", err)
	}
}

func TestConfig(t *testing.T) {
	bad := []forge.GitHubConfig{
		{Repo: "acme", Token: "t"},
		{Repo: "acme/../x", Token: "t"},
		{Repo: "a/b/c", Token: "t"},
		{Repo: "acme/app"},
		{API: "ftp://x", Repo: "acme/app", Token: "t"},
		{API: "://", Repo: "acme/app", Token: "t"},
	}
	for _, c := range bad {
		if _, err := forge.NewGitHub(c); err == nil {
			t.Errorf("NewGitHub(%+v) accepted", c)
		}
	}
	badGL := []forge.GitLabConfig{
		{Project: "", Token: "t"},
		{Project: "a/../b", Token: "t"},
		{Project: "a b", Token: "t"},
		{Project: "a/b"},
	}
	for _, c := range badGL {
		if _, err := forge.NewGitLab(c); err == nil {
			t.Errorf("NewGitLab(%+v) accepted", c)
		}
	}
	if _, err := forge.NewGitLab(forge.GitLabConfig{Project: "42", JobToken: "j"}); err != nil {
		t.Errorf("a job token alone: %v", err)
	}
	for _, r := range []forge.Request{{Base: "main", Title: "t"}, {Head: "main", Base: "main", Title: "t"}, {Head: "h", Base: "main"}} {
		for _, k := range kits(t, token) {
			if _, err := k.f.OpenOrUpdate(context.Background(), r); err == nil {
				t.Errorf("%s accepted %+v", k.name, r)
			}
		}
	}
}

func TestDraftAndCancel(t *testing.T) {
	for _, k := range kits(t, token) {
		r := req()
		r.Draft = true
		pr, err := k.f.OpenOrUpdate(context.Background(), r)
		if err != nil || !pr.Draft {
			t.Errorf("%s draft: %+v, %v", k.name, pr, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := k.f.OpenOrUpdate(ctx, req()); !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled: %v", k.name, err)
		}
	}
}

package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal"
)

const (
	shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	shaB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// hygieneServer is a server with a policy, metrics and its watch running,
// over an embedded NATS server, as salve serve wires them.
func hygieneServer(t *testing.T, p Policy, token string) (*Server, *httptest.Server) {
	t.Helper()
	q := testQueue(t, QueueConfig{AckWait: 30 * time.Second, MaxDeliver: 2, Cooldown: p.Cooldown})
	env := map[string]string{EnvGitHubSecret: testSecret, EnvGitLabToken: "gl-token"}
	s := &Server{Queue: q, Token: token, Getenv: func(k string) string { return env[k] }, Policy: p, Metrics: NewMetrics(q)}
	wctx, wcancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.Watch(wctx) })
	t.Cleanup(func() { wcancel(); wg.Wait() })
	hs := httptest.NewServer(s.Handler(nil))
	t.Cleanup(hs.Close)
	return s, hs
}

// runEvent is a signed workflow_run failure with its identity.
func runEvent(repo, headRepo, branch, sha, message string, id, attempt int, extra string) string {
	return fmt.Sprintf(`{"action":"completed","workflow_run":{"id":%d,"run_attempt":%d,"status":"completed","conclusion":"failure",
		"head_branch":%q,"head_sha":%q,"head_commit":{"message":%q},
		"head_repository":{"full_name":%q,"html_url":"https://github.com/%s"}%s},
		"repository":{"full_name":%q,"clone_url":"https://github.com/%s.git"}}`,
		id, attempt, branch, sha, message, headRepo, headRepo, extra, repo, repo)
}

func ghHeaders(id, body string) map[string]string {
	return map[string]string{"X-GitHub-Event": "workflow_run", "X-GitHub-Delivery": id,
		"X-Hub-Signature-256": sign(testSecret, body), "Content-Type": "application/json"}
}

func countJobs(t *testing.T, hs string, hdr map[string]string) int {
	t.Helper()
	_, out := do(t, "GET", hs+"/api/v1/heals", "", hdr)
	return int(out["total"].(float64))
}

// TestWebhookHygiene sends signed workflow_run failures over real HTTP:
// salve's own branch, salve's own commit, a skip marker and a fork queue
// nothing; a failure on main queues one job on the failing head_sha; the
// same run under a new delivery id (and a body that differs in a field
// salve does not read) queues nothing more.
func TestWebhookHygiene(t *testing.T) {
	_, hs := hygieneServer(t, Policy{}, "")
	ownFix := "salve heal: fix pkg/a.go\n\nundefined: x\n\nFixer: rules (confidence 0.90)\nRun: 6303548cabcdef01\n"
	for _, tc := range []struct {
		name, body, delivery string
		code                 int
		status, reason       string
	}{
		{"salve's own branch", runEvent("acme/api", "acme/api", "salve/heal-job-6303548c", shaA, "wip", 1, 1, ""), "d-1", 200, "ignored", "salve's own"},
		{"salve's own commit on main", runEvent("acme/api", "acme/api", "main", shaA, ownFix, 2, 1, ""), "d-2", 200, "ignored", "salve's own fixes"},
		{"salve's Run trailer alone", runEvent("acme/api", "acme/api", "main", shaA, "squash\n\nRun: 6303548cabcdef01", 3, 1, ""), "d-3", 200, "ignored", "salve's own fixes"},
		{"skip marker", runEvent("acme/api", "acme/api", "main", shaA, "docs [skip salve]", 4, 1, ""), "d-4", 200, "ignored", "skip"},
		{"other skip marker", runEvent("acme/api", "acme/api", "main", shaA, "docs [Salve Skip]", 5, 1, ""), "d-5", 200, "ignored", "skip"},
		{"fork", runEvent("acme/api", "mallory/api", "main", shaA, "pwn", 6, 1, ""), "d-6", 200, "ignored", "fork"},
		{"failure on main", runEvent("acme/api", "acme/api", "main", shaA, "feat: x", 7, 1, ""), "d-7", 202, "", ""},
		{"same run, new delivery id, another body", runEvent("acme/api", "acme/api", "main", shaA, "feat: x", 7, 1, `,"updated_at":"later"`), "d-8", 200, "duplicate", "already received"},
		{"same run re-attempted", runEvent("acme/api", "acme/api", "main", shaA, "feat: x", 7, 2, ""), "d-9", 202, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := countJobs(t, hs.URL, nil)
			code, out := do(t, "POST", hs.URL+"/webhooks/github", tc.body, ghHeaders(tc.delivery, tc.body))
			if code != tc.code {
				t.Fatalf("got %d %v, want %d", code, out, tc.code)
			}
			if tc.status != "" && (out["status"] != tc.status || !strings.Contains(fmt.Sprint(out["reason"]), tc.reason)) {
				t.Fatalf("answer %v, want %s with %q", out, tc.status, tc.reason)
			}
			want := map[bool]int{true: 1, false: 0}[code == 202]
			if got := countJobs(t, hs.URL, nil) - before; got != want {
				t.Fatalf("%d job(s) queued, want %d", got, want)
			}
			if code == 202 {
				_, j := do(t, "GET", hs.URL+"/api/v1/heals/"+out["id"].(string), "", nil)
				req := j["request"].(map[string]any)
				if req["sha"] != shaA || req["ref"] != "main" || req["repo"] != "https://github.com/acme/api.git" {
					t.Fatalf("job request %v, want main at %s", req, shaA)
				}
			}
		})
	}
}

// TestWebhookForkOptIn: with HealForks a fork's failure is queued on the
// fork's clone URL, untrusted, with the repository as its upstream (whose
// build-cache layer its heal reads and never writes); the jobs API cannot
// name an upstream.
func TestWebhookForkOptIn(t *testing.T) {
	_, hs := hygieneServer(t, Policy{HealForks: true}, "")
	body := runEvent("acme/api", "mallory/api", "patch-1", shaB, "fix", 11, 1, "")
	code, out := do(t, "POST", hs.URL+"/webhooks/github", body, ghHeaders("f-1", body))
	if code != 202 {
		t.Fatalf("got %d %v", code, out)
	}
	_, j := do(t, "GET", hs.URL+"/api/v1/heals/"+out["id"].(string), "", nil)
	if req := j["request"].(map[string]any); req["repo"] != "https://github.com/mallory/api.git" || req["sha"] != shaB ||
		req["untrusted"] != true || req["upstream"] != "https://github.com/acme/api.git" {
		t.Fatalf("fork job %v", req)
	}
	for _, tt := range []struct {
		body string
		code int
	}{
		{`{"repo":"https://github.com/mallory/api.git","upstream":"https://github.com/acme/api.git"}`, 400},
		{`{"repo":"https://github.com/mallory/api.git","untrusted":true}`, 202},
	} {
		if code, out := do(t, "POST", hs.URL+"/api/v1/heals", tt.body, map[string]string{"Content-Type": "application/json"}); code != tt.code {
			t.Errorf("%s: got %d %v, want %d", tt.body, code, out, tt.code)
		}
	}
}

// TestAttemptCapStopsLoop: failures of new runs on the same repository and
// ref (a loop: each heal's push fails CI again) queue MaxAttempts jobs,
// then are ignored with "attempt cap reached"; another ref still queues.
func TestAttemptCapStopsLoop(t *testing.T) {
	_, hs := hygieneServer(t, Policy{MaxAttempts: 2, Cooldown: time.Hour}, "")
	for i, want := range []int{202, 202, 200, 200} {
		body := runEvent("acme/api", "acme/api", "main", shaA, "feat", 100+i, 1, "")
		code, out := do(t, "POST", hs.URL+"/webhooks/github", body, ghHeaders(fmt.Sprintf("c-%d", i), body))
		if code != want {
			t.Fatalf("run %d: got %d %v, want %d", i, code, out, want)
		}
		if want == 200 && (out["status"] != "ignored" || !strings.Contains(out["reason"].(string), "attempt cap reached")) {
			t.Fatalf("run %d: %v", i, out)
		}
	}
	body := runEvent("acme/api", "acme/api", "dev", shaA, "feat", 200, 1, "")
	if code, out := do(t, "POST", hs.URL+"/webhooks/github", body, ghHeaders("c-dev", body)); code != 202 {
		t.Fatalf("another ref: got %d %v", code, out)
	}
	if n := countJobs(t, hs.URL, nil); n != 3 {
		t.Fatalf("%d jobs, want 3", n)
	}
	if m := scrape(t, hs.URL, ""); !strings.Contains(m, `salve_attempt_cap_reached_total{source="github"} 2`) {
		t.Fatalf("metrics lack the cap:\n%s", m)
	}
}

// TestTakeAttemptWindow: attempts older than the window no longer count.
func TestTakeAttemptWindow(t *testing.T) {
	s, _ := hygieneServer(t, Policy{}, "")
	ctx := context.Background()
	t0 := time.Now()
	for i, want := range []bool{true, false} {
		ok, _, err := s.Queue.TakeAttempt(ctx, "r", "main", 1, time.Minute, t0.Add(time.Duration(i)*time.Second))
		if err != nil || ok != want {
			t.Fatalf("attempt %d: %v %v", i, ok, err)
		}
	}
	ok, release, err := s.Queue.TakeAttempt(ctx, "r", "main", 1, time.Minute, t0.Add(2*time.Minute))
	if err != nil || !ok {
		t.Fatalf("after the window: %v %v", ok, err)
	}
	release()
	if ok, _, _ := s.Queue.TakeAttempt(ctx, "r", "main", 1, time.Minute, t0.Add(2*time.Minute)); !ok {
		t.Fatal("a released attempt still counts")
	}
}

func scrape(t *testing.T, base, token string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// TestMetricsEndpoint: /metrics needs the server's token, and exposes the
// webhook outcomes, the jobs by state and the queue's depth.
func TestMetricsEndpoint(t *testing.T) {
	const token = "metrics-token"
	_, hs := hygieneServer(t, Policy{}, token)
	req, _ := http.NewRequest("GET", hs.URL+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %d", resp.StatusCode)
	}
	body := runEvent("acme/api", "acme/api", "main", shaA, "feat", 1, 1, "")
	if code, out := do(t, "POST", hs.URL+"/webhooks/github", body, ghHeaders("m-1", body)); code != 202 {
		t.Fatalf("%d %v", code, out)
	}
	do(t, "POST", hs.URL+"/webhooks/github", body, ghHeaders("m-2", body))
	own := runEvent("acme/api", "acme/api", "salve/heal-x", shaA, "feat", 2, 1, "")
	do(t, "POST", hs.URL+"/webhooks/github", own, ghHeaders("m-3", own))
	do(t, "POST", hs.URL+"/webhooks/github", body, map[string]string{"X-GitHub-Event": "workflow_run", "X-Hub-Signature-256": "sha256=00"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var m string
	// The job's record and its message in the work queue are written one
	// after the other, and the consumer counts the message when the
	// stream has it: both are waited for.
	waitFor(t, ctx, "the queued job in salve_jobs and in the work queue", func() bool {
		m = scrape(t, hs.URL, token)
		return strings.Contains(m, `salve_jobs{state="queued"} 1`) && strings.Contains(m, "\nsalve_queue_pending 1\n")
	})
	for _, want := range []string{
		`salve_webhooks_total{outcome="queued",reason="",source="github"} 1`,
		`salve_webhooks_total{outcome="duplicate",reason="",source="github"} 1`,
		`salve_webhooks_total{outcome="ignored",reason="own_branch",source="github"} 1`,
		`salve_webhooks_total{outcome="refused",reason="bad_signature",source="github"} 1`,
		`salve_queue_pending 1`,
		`salve_jobs{state="green"} 0`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", m)
	}
}

// TestAllowRepos: an unlisted repository is refused by the API (403) and
// ignored by the webhooks; a listed one goes through.
func TestAllowRepos(t *testing.T) {
	_, hs := hygieneServer(t, Policy{AllowRepos: []string{"acme/*", "group/**"}}, "")
	api := func(repo string) int {
		code, _ := do(t, "POST", hs.URL+"/api/v1/heals", fmt.Sprintf(`{"repo": %q}`, repo), map[string]string{"Content-Type": "application/json"})
		return code
	}
	for repo, want := range map[string]int{
		"https://github.com/acme/api.git":       202,
		"git@github.com:ACME/web.git":           202,
		"https://gitlab.com/group/sub/proj.git": 202,
		"https://github.com/other/api.git":      403,
		"https://github.com/acme/sub/api.git":   403,
	} {
		if got := api(repo); got != want {
			t.Errorf("API %s: %d, want %d", repo, got, want)
		}
	}
	body := runEvent("other/api", "other/api", "main", shaA, "feat", 1, 1, "")
	code, out := do(t, "POST", hs.URL+"/webhooks/github", body, ghHeaders("a-1", body))
	if code != 200 || out["status"] != "ignored" || !strings.Contains(out["reason"].(string), "allow-repo") {
		t.Fatalf("unlisted webhook: %d %v", code, out)
	}
}

// TestAPIShaAndModels: the jobs API takes a commit and llm targets, and
// validates both.
func TestAPIShaAndModels(t *testing.T) {
	_, hs := hygieneServer(t, Policy{}, "")
	ct := map[string]string{"Content-Type": "application/json"}
	nine := `["a/1","a/2","a/3","a/4","a/5","a/6","a/7","a/8","a/9"]`
	for _, tc := range []struct {
		name, body string
		code       int
	}{
		{"sha and models", `{"repo": "/r", "ref": "main", "sha": "` + strings.ToUpper(shaA) + `", "models": ["anthropic/claude-sonnet-4", "openai/gpt-4.1"]}`, 202},
		{"sha-256", `{"repo": "/r", "sha": "` + strings.Repeat("c", 64) + `"}`, 202},
		{"short sha", `{"repo": "/r", "sha": "abc123"}`, 400},
		{"not hex", `{"repo": "/r", "sha": "` + strings.Repeat("g", 40) + `"}`, 400},
		{"model without provider", `{"repo": "/r", "models": ["gpt-4"]}`, 400},
		{"option-like model", `{"repo": "/r", "models": ["openai/--config=x"]}`, 400},
		{"spaces", `{"repo": "/r", "models": ["openai/gpt 4"]}`, 400},
		{"too many models", `{"repo": "/r", "models": ` + nine + `}`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := do(t, "POST", hs.URL+"/api/v1/heals", tc.body, ct)
			if code != tc.code {
				t.Fatalf("got %d %v, want %d", code, out, tc.code)
			}
			if tc.name == "sha and models" {
				_, j := do(t, "GET", hs.URL+"/api/v1/heals/"+out["id"].(string), "", nil)
				req := j["request"].(map[string]any)
				if req["sha"] != shaA || fmt.Sprint(req["models"]) != "[anthropic/claude-sonnet-4 openai/gpt-4.1]" {
					t.Fatalf("job request %v", req)
				}
			}
		})
	}
}

// TestGitLabHygiene: a GitLab merge request pipeline from a fork is
// ignored; a failed pipeline records its sha, and a merge request ref
// heals the source branch.
func TestGitLabHygiene(t *testing.T) {
	_, hs := hygieneServer(t, Policy{}, "")
	pipeline := func(id int, ref, mr string) string {
		return fmt.Sprintf(`{"object_kind":"pipeline","object_attributes":{"id":%d,"status":"failed","ref":%q,"sha":%q,"finished_at":"t"},
			"project":{"id":1,"git_http_url":"https://gitlab.example.com/acme/svc.git","path_with_namespace":"acme/svc"},
			"commit":{"message":"feat"}%s}`, id, ref, shaB, mr)
	}
	hdr := func(id string) map[string]string {
		return map[string]string{"X-Gitlab-Token": "gl-token", "X-Gitlab-Event": "Pipeline Hook", "X-Gitlab-Event-UUID": id}
	}
	fork := pipeline(1, "refs/merge-requests/3/head", `,"merge_request":{"source_branch":"patch","source_project_id":9,"target_project_id":1}`)
	if code, out := do(t, "POST", hs.URL+"/webhooks/gitlab", fork, hdr("g-1")); code != 200 || out["status"] != "ignored" {
		t.Fatalf("fork: %d %v", code, out)
	}
	mr := pipeline(2, "refs/merge-requests/4/head", `,"merge_request":{"source_branch":"feature","source_project_id":1,"target_project_id":1}`)
	code, out := do(t, "POST", hs.URL+"/webhooks/gitlab", mr, hdr("g-2"))
	if code != 202 {
		t.Fatalf("merge request pipeline: %d %v", code, out)
	}
	_, j := do(t, "GET", hs.URL+"/api/v1/heals/"+out["id"].(string), "", nil)
	if req := j["request"].(map[string]any); req["ref"] != "feature" || req["sha"] != shaB {
		t.Fatalf("job request %v", req)
	}
}

func TestOwnCommitAndSkip(t *testing.T) {
	if !strings.HasPrefix(heal.DefaultBranchPrefix, OwnBranchPrefix) {
		t.Fatalf("heal branches (%s) are not under %s", heal.DefaultBranchPrefix, OwnBranchPrefix)
	}
	for _, tc := range []struct {
		msg       string
		own, skip bool
	}{
		{"salve heal: fix a.go\n\nx\n\nFixer: rules (confidence 0.9)\nRun: 0123456789abcdef\n", true, false},
		{"Merge pull request #4\n\nsalve heal: fix a.go\n\nRun: 0123456789abcdef", true, false},
		{"Run: the tests first\n\nthen fix", false, false},
		{"feat: run it\n\nRun: x", false, false},
		{"chore [skip salve]", false, true},
		{"chore [SALVE SKIP]", false, true},
		{"chore [skip ci]", false, false},
		{"", false, false},
	} {
		if got := OwnCommit(tc.msg); got != tc.own {
			t.Errorf("OwnCommit(%q) = %v", tc.msg, got)
		}
		if got := SkipRequested(tc.msg); got != tc.skip {
			t.Errorf("SkipRequested(%q) = %v", tc.msg, got)
		}
	}
}

func TestRepoName(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/acme/api.git":        "acme/api",
		"https://github.com/acme/api":            "acme/api",
		"git@github.com:acme/api.git":            "acme/api",
		"ssh://git@host:22/group/sub/p.git":      "group/sub/p",
		"/srv/git/acme/api.git":                  "srv/git/acme/api",
		"file:///srv/git/acme/api.git":           "srv/git/acme/api",
		"https://github.com/acme/../other/x.git": "other/x",
	} {
		if got := RepoName(in); got != want {
			t.Errorf("RepoName(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseGitHubEvent(f *testing.F) {
	f.Add("workflow_run", []byte(runEvent("acme/api", "m/api", "main", shaA, "x", 1, 1, "")))
	f.Add("check_suite", []byte(failedSuite))
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		e, err := ParseGitHubEvent(event, body)
		if e == nil {
			return
		}
		if err != nil {
			t.Fatalf("an event and an error: %v", err)
		}
		if e.Request.Sha != "" && !validSha(e.Request.Sha) {
			t.Fatalf("invalid sha %q accepted", e.Request.Sha)
		}
		p := Policy{HealForks: true}
		if p.judge(e) == nil && e.Fork && e.Request.Repo != e.HeadCloneURL {
			t.Fatalf("fork healed on %q", e.Request.Repo)
		}
		_ = OwnCommit(e.Message)
		_, _ = json.Marshal(e)
	})
}

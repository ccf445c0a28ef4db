package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

// newTestServer starts an embedded NATS server with JetStream in a temp
// dir, sets the queue up and serves the API.
// failAfter caps every wait on an event: it is reached only when the
// event never comes, so it is long enough for the busiest machine.
const failAfter = 2 * time.Minute

// waitFor polls cond until it holds, and fails the test if ctx ends first.
// The poll interval only sets how soon a change is seen.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

// testQueue is the work queue of cfg over a fresh embedded NATS server,
// both closed when the test ends.
func testQueue(t *testing.T, cfg QueueConfig) *Queue {
	t.Helper()
	ns, err := StartEmbedded(EmbeddedOptions{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := SetupQueue(ctx, nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func newTestServer(t *testing.T, env map[string]string) (*Server, *httptest.Server) {
	t.Helper()
	q := testQueue(t, QueueConfig{AckWait: 2 * time.Second, MaxDeliver: 2})
	s := &Server{Queue: q, Getenv: func(k string) string { return env[k] }}
	hs := httptest.NewServer(s.Handler(nil))
	t.Cleanup(hs.Close)
	return s, hs
}

func do(t *testing.T, method, url, body string, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %q", method, url, resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

func TestCreateHealRejectsBadInput(t *testing.T) {
	_, hs := newTestServer(t, nil)
	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"malformed", `{"repo": `, 400, "malformed request body"},
		{"not an object", `[1]`, 400, "malformed request body"},
		{"unknown field", `{"repo": "/r", "branch": "main"}`, 400, `unknown field "branch"`},
		{"missing repo", `{"ref": "main"}`, 400, "repo is required"},
		{"two values", `{"repo": "/r"} {"repo": "/s"}`, 400, "more than one JSON value"},
		{"bad ref", `{"repo": "/r", "ref": "a..b"}`, 400, "not a valid branch name"},
		{"option ref", `{"repo": "/r", "ref": "-x"}`, 400, "not a valid branch name"},
		{"option repo", `{"repo": "--upload-pack=touch /tmp/x"}`, 400, "may not start with '-'"},
		{"ext transport", `{"repo": "ext::sh -c touch% /tmp/pwned"}`, 400, "refused git transport"},
		{"token in url", `{"repo": "https://user:ghp_secret@example.com/a/b.git"}`, 400, "environment"},
		{"unknown fixer", `{"repo": "/r", "fixers": "rules,magic"}`, 400, `unknown fixer "magic"`},
		{"too large", `{"repo": "` + strings.Repeat("a", MaxBodyBytes) + `"}`, 413, "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := do(t, "POST", hs.URL+"/api/v1/heals", tc.body, nil)
			if code != tc.code || !strings.Contains(fmt.Sprint(out["error"]), tc.want) {
				t.Fatalf("got %d %v, want %d with %q", code, out, tc.code, tc.want)
			}
		})
	}
	_, out := do(t, "GET", hs.URL+"/api/v1/heals", "", nil)
	if out["total"] != float64(0) {
		t.Fatalf("a refused request queued a job: %v", out)
	}
}

func TestCreateGetListHeals(t *testing.T) {
	s, hs := newTestServer(t, nil)
	var ids []string
	for i, body := range []string{
		`{"repo": "/srv/a.git", "ref": "main"}`,
		`{"repo": "/srv/b.git", "ref": "main", "cmd": "make", "fixers": "rules"}`,
		`{"repo": "/srv/a.git", "ref": "dev", "pr": true}`,
	} {
		code, out := do(t, "POST", hs.URL+"/api/v1/heals", body, nil)
		if code != http.StatusAccepted || out["id"] == nil {
			t.Fatalf("job %d: %d %v", i, code, out)
		}
		ids = append(ids, out["id"].(string))
	}
	code, j := do(t, "GET", hs.URL+"/api/v1/heals/"+ids[1], "", nil)
	if code != 200 || j["status"] != "queued" || j["branch"] != BranchFor(ids[1]) || j["request"].(map[string]any)["cmd"] != "make" {
		t.Fatalf("GET: %d %v", code, j)
	}
	if code, _ := do(t, "GET", hs.URL+"/api/v1/heals/nope", "", nil); code != 404 {
		t.Fatalf("unknown id: %d", code)
	}
	// Three messages wait on the work-queue stream, one per job.
	info, err := s.Queue.JS.Stream(context.Background(), Stream)
	if err != nil {
		t.Fatal(err)
	}
	if si, _ := info.Info(context.Background()); si.State.Msgs != 3 {
		t.Fatalf("stream holds %d messages, want 3", si.State.Msgs)
	}
	for _, tc := range []struct {
		query string
		n     int
		total int
	}{
		{"", 3, 3},
		{"?repo=/srv/a.git", 2, 2},
		{"?repo=/srv/a.git&ref=dev", 1, 1},
		{"?status=green", 0, 0},
		{"?status=queued&limit=2", 2, 3},
		{"?limit=2&offset=2", 1, 3},
	} {
		code, out := do(t, "GET", hs.URL+"/api/v1/heals"+tc.query, "", nil)
		if code != 200 || len(out["jobs"].([]any)) != tc.n || out["total"] != float64(tc.total) {
			t.Fatalf("list %s: %d %v", tc.query, code, out)
		}
	}
	for _, q := range []string{"?status=done", "?limit=0", "?limit=x", "?offset=-1"} {
		if code, _ := do(t, "GET", hs.URL+"/api/v1/heals"+q, "", nil); code != 400 {
			t.Fatalf("list %s: %d, want 400", q, code)
		}
	}
}

func TestAPIToken(t *testing.T) {
	s, hs := newTestServer(t, nil)
	s.Token = "s3cret"
	if code, _ := do(t, "GET", hs.URL+"/api/v1/heals", "", nil); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	if code, _ := do(t, "GET", hs.URL+"/api/v1/heals", "", map[string]string{"Authorization": "Bearer wrong"}); code != 401 {
		t.Fatalf("wrong token: %d", code)
	}
	if code, _ := do(t, "GET", hs.URL+"/api/v1/heals", "", map[string]string{"Authorization": "Bearer s3cret"}); code != 200 {
		t.Fatalf("right token: %d", code)
	}
}

func TestRunsAPI(t *testing.T) {
	s, hs := newTestServer(t, nil)
	if code, _ := do(t, "GET", hs.URL+"/api/v1/runs", "", nil); code != 404 {
		t.Fatalf("no store: %d", code)
	}
	st, err := store.OpenContext(context.Background(), filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s.Store = st
	if _, err := st.CreateRun(context.Background(), store.Run{RunID: "0123456789abcdef", Kind: store.KindHeal, Title: "heal x", StartedAt: contract.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	code, out := do(t, "GET", hs.URL+"/api/v1/runs?kind=heal", "", nil)
	if runs, _ := out["runs"].([]any); code != 200 || len(runs) != 1 {
		t.Fatalf("list: %d %v", code, out)
	}
	code, out = do(t, "GET", hs.URL+"/api/v1/runs/01234567", "", nil) // a unique prefix
	if run, _ := out["run"].(map[string]any); code != 200 || run["run_id"] != "0123456789abcdef" {
		t.Fatalf("show: %d %v", code, out)
	}
	if code, _ := do(t, "GET", hs.URL+"/api/v1/runs/ffff", "", nil); code != 404 {
		t.Fatalf("unknown run: %d", code)
	}
	if code, _ := do(t, "GET", hs.URL+"/api/v1/runs?limit=0", "", nil); code != 400 {
		t.Fatalf("limit 0: %d", code)
	}
}

package ui_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/ui"
)

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Result().Header
}

func TestRequests(t *testing.T) {
	f := filledStore(t)
	srv, err := ui.New(f.st, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, target string
		code                 int
		want                 []string
	}{
		{"list", "GET", "/", 200, []string{"<h1>Runs</h1>", f.healID[:8], f.execID[:8], f.toolID[:8], "3 run(s)"}},
		{"filter by kind", "GET", "/?kind=exec", 200, []string{"1 run(s)", f.execID[:8]}},
		{"filter by repository", "GET", "/?repo=" + f.repo, 200, []string{"1 run(s)", f.healID[:8]}},
		{"heal", "GET", "/runs/" + f.healID, 200, []string{"Bugs", "remove unused import", "Commits", "LLM accounting", "Timeline",
			"<td>before fixing</td>", "<td>fix</td>", "<td>iteration 1</td>"}},
		{"exec", "GET", "/runs/" + f.execID, 200, []string{"Execution", "sh check.sh", "build.log", "<td>exit code "}},
		{"tool run", "GET", "/runs/" + f.toolID, 200, []string{"Tool runs", "aider", "Patches", "sum.go", "notes.txt", "scope violation"}},
		{"log", "GET", "/runs/" + f.execID + "/artifacts/build.log?lines=1", 200, []string{`<tr id="L1" class="hl">`}},
		{"raw log", "GET", "/runs/" + f.execID + "/artifacts/build.log?raw=1", 200, []string{"undefined"}},
		{"unknown run", "GET", "/runs/does-not-exist", 404, []string{"404", "no run does-not-exist"}},
		{"unknown artifact", "GET", "/runs/" + f.execID + "/artifacts/nope.log", 404, []string{"no artifact"}},
		{"traversal", "GET", "/runs/" + f.execID + "/artifacts/..%2F..%2F..%2Fetc%2Fpasswd", 404, nil},
		{"dot dot path is cleaned, never served", "GET", "/runs/../../etc/passwd", 307, nil},
		{"unknown page", "GET", "/etc/passwd", 404, nil},
		{"read-only", "POST", "/", 405, nil},
		{"static", "GET", "/static/style.css", 200, []string{"--ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, hdr := get(t, srv, tt.method, tt.target, nil)
			if code != tt.code {
				t.Fatalf("%s %s: %d, want %d\n%s", tt.method, tt.target, code, tt.code, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q", tt.target, w)
				}
			}
			if strings.Contains(body, "&#34;iteration&#34;") || strings.Contains(body, "&#34;exit_code&#34;") {
				t.Error("the timeline shows a stage's raw JSON detail")
			}
			if strings.Contains(body, "root:x:0:0") {
				t.Fatal("a file outside the store was served")
			}
			if hdr.Get("Content-Security-Policy") == "" {
				t.Error("no Content-Security-Policy")
			}
		})
	}
}

func TestToken(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := ui.New(st, "s3cret", nil)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := get(t, srv, "GET", "/", nil); code != 401 {
		t.Errorf("no token: %d", code)
	}
	if code, _, _ := get(t, srv, "GET", "/", map[string]string{"Authorization": "Bearer wrong"}); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	if code, _, _ := get(t, srv, "GET", "/", map[string]string{"Authorization": "Bearer s3cret"}); code != 200 {
		t.Errorf("bearer token: %d", code)
	}
	code, _, hdr := get(t, srv, "GET", "/login?token=s3cret", nil)
	if code != http.StatusSeeOther || !strings.Contains(hdr.Get("Set-Cookie"), "salve_token=s3cret") || !strings.Contains(hdr.Get("Set-Cookie"), "HttpOnly") {
		t.Errorf("login: %d %q", code, hdr.Get("Set-Cookie"))
	}
	if code, _, _ := get(t, srv, "GET", "/", map[string]string{"Cookie": "salve_token=s3cret"}); code != 200 {
		t.Errorf("cookie: %d", code)
	}
	if code, _, _ := get(t, srv, "GET", "/login?token=nope", nil); code != 401 {
		t.Errorf("bad login: %d", code)
	}
}

// TestPaging fills a store with more runs than a page and walks it.
func TestPaging(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for i := 0; i < ui.PageSize+7; i++ {
		r, err := st.CreateRun(ctx, store.Run{Kind: store.KindExec, Title: fmt.Sprintf("run-%03d", i), StartedAt: fmt.Sprintf("2026-11-24T08:%02d:%02d.000Z", i/60, i%60)})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, r.RunID, "succeeded", map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	srv, _ := ui.New(st, "", nil)
	_, p1, _ := get(t, srv, "GET", "/", nil)
	_, p2, _ := get(t, srv, "GET", "/?page=2", nil)
	if !strings.Contains(p1, fmt.Sprintf("run-%03d", ui.PageSize+6)) || strings.Contains(p1, "run-000") || !strings.Contains(p1, `rel="next"`) {
		t.Error("page 1 is not the newest runs with a next link")
	}
	if !strings.Contains(p2, "run-000") || strings.Count(p2, "<tr><td><a href=\"/runs/") != 7 || !strings.Contains(p2, `rel="prev"`) {
		t.Error("page 2 is not the 7 oldest runs with a previous link")
	}
}

// TestLogPageStripsColours: a log kept with terminal escapes (an older
// run's, an attachment) is shown as its text: no escape, escaped or not,
// reaches the page, and the raw download keeps the bytes as stored.
func TestLogPageStripsColours(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	run, err := st.CreateRun(ctx, store.Run{Kind: store.KindExec, Title: "coloured"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutArtifact(ctx, run.RunID, "build.log", []byte("\x1b[31m FAIL \x1b[39m a.test.js\n\x1b[39m | Total: 32\x1b[31m\n")); err != nil {
		t.Fatal(err)
	}
	srv, err := ui.New(st, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, srv, "GET", "/runs/"+run.RunID+"/artifacts/build.log", nil)
	if code != 200 || !strings.Contains(body, "<pre> FAIL  a.test.js</pre>") || !strings.Contains(body, "<pre> | Total: 32</pre>") {
		t.Fatalf("%d:\n%s", code, body)
	}
	if strings.ContainsRune(body, 0x1b) || strings.Contains(body, "[39m") || strings.Contains(body, "&#27;") {
		t.Errorf("the page shows an escape:\n%s", body)
	}
}

// TestHealPageWithoutNoise: a green heal without a model shows no
// "rejected attempts" for tiers that merely had nothing to offer, and its
// tiers say the llm one was not configured.
func TestHealPageWithoutNoise(t *testing.T) {
	f := filledStore(t)
	srv, err := ui.New(f.st, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, srv, "GET", "/runs/"+f.healID, nil)
	if code != 200 {
		t.Fatalf("%d", code)
	}
	if !strings.Contains(body, "llm (not configured)") {
		t.Errorf("the tiers do not say the llm tier was not configured:\n%s", body)
	}
	if strings.Contains(body, "Rejected attempts") || strings.Contains(body, "no_fix") {
		t.Errorf("tiers that had no fix are shown as rejected attempts:\n%s", body)
	}
	if !strings.Contains(body, `<span class="badge ok">fixed</span>`) {
		t.Errorf("the heal fixed nothing, so this test shows nothing:\n%s", body)
	}
}

package ui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/httpguard/httpguardtest"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/ui"
)

// guardedViewer serves a viewer over a store with one run, on a real
// loopback listener.
func guardedViewer(t *testing.T, token string) (*httptest.Server, string) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ctx := context.Background()
	r, err := st.CreateRun(ctx, store.Run{Kind: store.KindHeal, Title: "heal with a secret log"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, r.RunID, "green", map[string]any{"outcome": "green"}); err != nil {
		t.Fatal(err)
	}
	v, err := ui.New(st, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(v)
	t.Cleanup(hs.Close)
	return hs, r.RunID
}

// TestGuardViewerRefusesReboundHost: without a token (the loopback
// default), a page whose name was rebound to 127.0.0.1 cannot read the
// runs: its requests carry its own name as Host. The viewer's own names
// still work, and so does a link from another site; a cross-site fetch
// does not. On main before the guard, the rebound Host got 200 and the
// page.
func TestGuardViewerRefusesReboundHost(t *testing.T) {
	hs, id := guardedViewer(t, "")
	port := hs.Listener.Addr().String()[len("127.0.0.1:"):]
	for _, tc := range []struct {
		name, path, host string
		hdr              map[string]string
		want             int
	}{
		{"rebound list", "/", "evil.example:" + port, nil, 403},
		{"rebound run", "/runs/" + id, "evil.example:" + port, map[string]string{"Sec-Fetch-Site": "same-origin"}, 403},
		{"rebound, no port", "/", "evil.example", nil, 403},
		{"cross-site fetch", "/runs/" + id, "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors", "Origin": "http://evil.example"}, 403},
		{"127.0.0.1", "/", "127.0.0.1:" + port, nil, 200},
		{"localhost", "/runs/" + id, "localhost:" + port, nil, 200},
		{"localhost, no port", "/", "localhost", nil, 200},
		{"own page", "/runs/" + id, "", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
		{"link from elsewhere", "/runs/" + id, "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := httpguardtest.Send(t, "GET", hs.URL+tc.path, tc.host, "", tc.hdr)
			if code != tc.want {
				t.Fatalf("status %d, want %d: %.200s", code, tc.want, body)
			}
			if code != 200 && strings.Contains(body, "secret log") {
				t.Fatal("a refusal shows the run")
			}
		})
	}
}

// TestGuardViewerToken: with a token the guard asks for it (bearer or the
// login cookie) and /login stays open; the Host rule still comes first.
func TestGuardViewerToken(t *testing.T) {
	hs, _ := guardedViewer(t, "s3cret")
	port := hs.Listener.Addr().String()[len("127.0.0.1:"):]
	if code, body := httpguardtest.Send(t, "GET", hs.URL+"/", "", "", nil); code != 401 || !strings.Contains(body, "/login?token=") {
		t.Fatalf("no token: %d %s", code, body)
	}
	if code, _ := httpguardtest.Send(t, "GET", hs.URL+"/", "", "", map[string]string{"Authorization": "Bearer s3cret"}); code != 200 {
		t.Fatalf("bearer: %d", code)
	}
	if code, _ := httpguardtest.Send(t, "GET", hs.URL+"/", "", "", map[string]string{"Cookie": "salve_token=s3cret"}); code != 200 {
		t.Fatalf("cookie: %d", code)
	}
	if code, _ := httpguardtest.Send(t, "GET", hs.URL+"/", "evil.example:"+port, "", map[string]string{"Authorization": "Bearer s3cret"}); code != 403 {
		t.Fatalf("rebound host with the token: %d", code)
	}
	req, _ := http.NewRequest("GET", hs.URL+"/login?token=s3cret", nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Set-Cookie"), "salve_token=s3cret") {
		t.Fatalf("login: %d %v", resp.StatusCode, resp.Header)
	}
}

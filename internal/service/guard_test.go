package service

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/httpguard/httpguardtest"
)

// guardedServer serves the API of a fresh queue on a real loopback
// listener, with the GitLab webhook token set.
func guardedServer(t *testing.T, token string) (*Server, *httptest.Server) {
	t.Helper()
	q := testQueue(t, QueueConfig{AckWait: 2 * time.Second, MaxDeliver: 2})
	env := map[string]string{EnvGitLabToken: "gl-secret"}
	s := &Server{Queue: q, Token: token, Getenv: func(k string) string { return env[k] }}
	hs := httptest.NewServer(s.Handler(nil))
	t.Cleanup(hs.Close)
	return s, hs
}

func queued(t *testing.T, s *Server) int {
	t.Helper()
	_, total, err := s.Queue.List(context.Background(), Filter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// TestGuardServeRefusesWebPages: with no token (the loopback default), a
// web page cannot queue a job: neither a cross-site text/plain POST (what
// fetch(…, {mode: "no-cors"}) sends) nor a request to a name rebound to
// 127.0.0.1 (DNS rebinding). Programs on this machine still can, under
// 127.0.0.1 or localhost. On main before the guard, both page requests
// answered 202 and queued a job whose cmd ran on a worker.
func TestGuardServeRefusesWebPages(t *testing.T) {
	s, hs := guardedServer(t, "")
	port := hs.Listener.Addr().String()[len("127.0.0.1:"):]
	job := `{"repo": "https://git.example.com/a/b.git", "ref": "main", "cmd": "touch /tmp/pwned"}`
	jsonCT := map[string]string{"Content-Type": "application/json"}
	for _, tc := range []struct {
		name, host string
		hdr        map[string]string
		want       int
	}{
		{"cross-site text/plain", "", map[string]string{"Content-Type": "text/plain;charset=UTF-8", "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, 403},
		{"cross-site without origin", "", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403},
		{"rebound host", "evil.example:" + port, jsonCT, 403},
		{"rebound host, same origin", "evil.example:" + port, map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example:" + port}, 403},
		{"text/plain from a program", "", map[string]string{"Content-Type": "text/plain"}, 415},
		{"form from a program", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := httpguardtest.Send(t, "POST", hs.URL+"/api/v1/heals", tc.host, job, tc.hdr)
			if code != tc.want || !strings.Contains(body, `"error"`) {
				t.Fatalf("status %d %s, want %d with a JSON error", code, body, tc.want)
			}
		})
	}
	if n := queued(t, s); n != 0 {
		t.Fatalf("refused requests queued %d jobs", n)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		if code, body := httpguardtest.Send(t, "POST", hs.URL+"/api/v1/heals", host, job, map[string]string{"Content-Type": "application/json; charset=utf-8"}); code != 202 {
			t.Fatalf("Host %s: %d %s", host, code, body)
		}
	}
	if code, _ := httpguardtest.Send(t, "GET", hs.URL+"/api/v1/heals", "localhost:"+port, "", nil); code != 200 {
		t.Fatalf("GET under localhost: %d", code)
	}
	if n := queued(t, s); n != 3 {
		t.Fatalf("%d jobs queued, want 3", n)
	}
}

// TestGuardServeWebhooks: a webhook needs no bearer token and takes any
// body type (it is authenticated by its own secret), but on loopback its
// Host is checked like every other route's. On main before the guard, the
// rebound request reached the webhook.
func TestGuardServeWebhooks(t *testing.T) {
	_, hs := guardedServer(t, "api-token")
	port := hs.Listener.Addr().String()[len("127.0.0.1:"):]
	hook := map[string]string{"X-Gitlab-Token": "gl-secret", "X-Gitlab-Event": "Push Hook", "Content-Type": "text/plain"}
	code, body := httpguardtest.Send(t, "POST", hs.URL+"/webhooks/gitlab", "", `{}`, hook)
	var out map[string]string
	if code != 200 || json.Unmarshal([]byte(body), &out) != nil || out["status"] != "ignored" {
		t.Fatalf("webhook without the API token: %d %s", code, body)
	}
	if code, body := httpguardtest.Send(t, "POST", hs.URL+"/webhooks/gitlab", "evil.example:"+port, `{}`, hook); code != 403 {
		t.Fatalf("webhook under a rebound host: %d %s", code, body)
	}
	if code, _ := httpguardtest.Send(t, "GET", hs.URL+"/healthz", "", "", nil); code != 200 {
		t.Fatalf("healthz without the token: %d", code)
	}
	if code, _ := httpguardtest.Send(t, "GET", hs.URL+"/api/v1/heals", "", "", nil); code != 401 {
		t.Fatalf("API without the token: %d", code)
	}
	if code, _ := httpguardtest.Send(t, "GET", hs.URL+"/api/v1/heals", "", "", map[string]string{"Authorization": "Bearer api-token"}); code != 200 {
		t.Fatalf("API with the token: %d", code)
	}
}

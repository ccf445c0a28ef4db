package headend

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/httpguard"
	"github.com/salve-dev/salve/internal/httpguard/httpguardtest"
)

// hostRequest sends one request to path on addr under the Host header
// host, its body, when there is one, as JSON.
func hostRequest(t *testing.T, method, addr, path, host, body string) (int, string) {
	t.Helper()
	var hdr map[string]string
	if body != "" {
		hdr = map[string]string{"Content-Type": "application/json"}
	}
	return httpguardtest.Send(t, method, "http://"+addr+path, host, body, hdr)
}

// TestGuardHeadendsRefuseReboundHost: on loopback with no token, a page
// whose name was rebound to 127.0.0.1 can neither reach a headend nor run
// a session through it, while 127.0.0.1:PORT and localhost:PORT still
// get 200. On main before the guard, every rebound request below but the
// MCP endpoints answered 200, and the sessions ran.
func TestGuardHeadendsRefuseReboundHost(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)},
		Spec{Kind: KindOpenAI}, Spec{Kind: KindAnthropic}, Spec{Kind: KindAPI},
		Spec{Kind: KindMCP, Transport: "http"}, Spec{Kind: KindMCP, Transport: "sse"})
	chat := `{"model":"chat","messages":[{"role":"user","content":"hi"}]}`
	anthropic := `{"model":"chat","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	sessions := []struct{ kind, method, path, body string }{
		{KindOpenAI, "POST", "/v1/chat/completions", chat},
		{KindOpenAI, "GET", "/v1/models", ""},
		{KindAnthropic, "POST", "/v1/messages", anthropic},
		{KindAPI, "GET", "/v1/chat?q=hi", ""},
	}
	for kind, addr := range h.addrs {
		_, port, _ := net.SplitHostPort(addr)
		for _, host := range []string{"evil.example:" + port, "evil.example", "attacker.127.0.0.1.nip.io:" + port} {
			if code, body := hostRequest(t, "GET", addr, "/health", host, ""); code != 403 {
				t.Errorf("%s: /health under Host %s: %d %s", kind, host, code, body)
			}
		}
		for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
			if code, body := hostRequest(t, "GET", addr, "/health", host, ""); code != 200 {
				t.Errorf("%s: /health under Host %s: %d %s", kind, host, code, body)
			}
		}
	}
	for _, s := range sessions {
		addr := h.addrs[s.kind]
		_, port, _ := net.SplitHostPort(addr)
		if code, body := hostRequest(t, s.method, addr, s.path, "evil.example:"+port, s.body); code != 403 {
			t.Errorf("%s %s under a rebound Host: %d %s", s.kind, s.path, code, body)
		}
	}
	if len(f.requests) != 0 {
		t.Fatalf("%d sessions ran for rebound requests", len(f.requests))
	}
	for _, s := range sessions {
		addr := h.addrs[s.kind]
		_, port, _ := net.SplitHostPort(addr)
		for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
			if code, body := hostRequest(t, s.method, addr, s.path, host, s.body); code != 200 {
				t.Errorf("%s %s under Host %s: %d %s", s.kind, s.path, host, code, body)
			}
		}
	}
	if len(f.requests) != 6 {
		t.Fatalf("%d sessions ran, want 6", len(f.requests))
	}
}

// TestGuardHeadendsTextPlain: a text/plain body (a page's no-cors fetch
// when it sends no Origin) is refused with 415, and no session runs.
func TestGuardHeadendsTextPlain(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindOpenAI})
	req, _ := http.NewRequest("POST", "http://"+h.addrs[KindOpenAI]+"/v1/chat/completions",
		strings.NewReader(`{"model":"chat","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType || len(f.requests) != 0 {
		t.Fatalf("text/plain: %d, %d sessions", resp.StatusCode, len(f.requests))
	}
}

// TestGuardHeadendsListen: beyond loopback the headends need a token,
// unless InsecureNoToken, which returns the warning to print; MCP on stdio
// listens on nothing. With InsecureNoToken on every interface the
// headends start, and a connection through loopback still has its Host
// checked. On main there was no such check: any address started silently.
func TestGuardHeadendsListen(t *testing.T) {
	http1 := []Spec{{Kind: KindAPI}}
	for _, tc := range []struct {
		name  string
		o     Options
		specs []Spec
		warn  bool
		err   bool
	}{
		{"default loopback", Options{}, http1, false, false},
		{"127.0.0.2", Options{ListenAddress: "127.0.0.2"}, http1, false, false},
		{"every interface", Options{ListenAddress: "0.0.0.0"}, http1, false, true},
		{"ipv6 any", Options{ListenAddress: "::"}, http1, false, true},
		{"with a token", Options{ListenAddress: "0.0.0.0", Token: "t"}, http1, false, false},
		{"insecure", Options{ListenAddress: "0.0.0.0", InsecureNoToken: true}, http1, true, false},
		{"stdio only", Options{ListenAddress: "0.0.0.0"}, []Spec{{Kind: KindMCP, Transport: "stdio"}}, false, false},
	} {
		warn, err := tc.o.CheckListen(tc.specs)
		if (warn != "") != tc.warn || (err != nil) != tc.err {
			t.Errorf("%s: warning %q, error %v", tc.name, warn, err)
		}
		if err != nil && (!errors.Is(err, ErrSpec) || !errors.Is(err, httpguard.ErrNoToken) || !strings.Contains(err.Error(), DefaultTokenEnv) || !strings.Contains(err.Error(), "--insecure-no-token")) {
			t.Errorf("%s: the error does not say what to do: %v", tc.name, err)
		}
		if warn != "" && !strings.Contains(warn, "WARNING") {
			t.Errorf("%s: warning %q", tc.name, warn)
		}
	}
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f), ListenAddress: "0.0.0.0", InsecureNoToken: true}, Spec{Kind: KindAPI})
	_, port, _ := net.SplitHostPort(h.addrs[KindAPI])
	if code, _ := hostRequest(t, "GET", "127.0.0.1:"+port, "/v1/chat?q=hi", "evil.example:"+port, ""); code != 403 {
		t.Fatalf("rebound host through loopback: %d", code)
	}
	if code, _ := hostRequest(t, "GET", "127.0.0.1:"+port, "/v1/chat?q=hi", "localhost:"+port, ""); code != 200 {
		t.Fatalf("localhost: %d", code)
	}
}

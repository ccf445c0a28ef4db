package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/httpguard/httpguardtest"
)

// served is a salve server running in the background, its stderr read
// line by line.
type served struct {
	lines  chan string
	cancel context.CancelFunc
	done   chan int
	seen   []string
}

func serveInBackground(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &served{lines: make(chan string, 100), cancel: cancel, done: make(chan int, 1)}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	go func() {
		code := run(ctx, args, strings.NewReader(""), io.Discard, pw)
		_ = pw.Close()
		s.done <- code
	}()
	t.Cleanup(func() {
		cancel()
		for range s.lines {
		}
		<-s.done
	})
	return s
}

// waitFor returns the first stderr line matching re, or fails when the
// server exits first.
func (s *served) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	for line := range s.lines {
		s.seen = append(s.seen, line)
		if m := re.FindStringSubmatch(line); m != nil {
			return m
		}
	}
	t.Fatalf("the server ended without printing %s; stderr:\n%s", re, strings.Join(s.seen, "\n"))
	return nil
}

// port is the port of a host:port the server printed.
func port(t *testing.T, hostport string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// status sends one request under the Host header host, its body of
// content type ctype when ctype is not empty, and returns the status code.
func status(t *testing.T, method, url, host, ctype, body string) int {
	t.Helper()
	var hdr map[string]string
	if ctype != "" {
		hdr = map[string]string{"Content-Type": ctype}
	}
	code, _ := httpguardtest.Send(t, method, url, host, body, hdr)
	return code
}

// TestGuardListenNeedsToken: salve serve, ui and mcp --http refuse to
// listen beyond loopback without a token, saying which to give and that
// --insecure-no-token exists. On main, salve serve started silently and
// the flag did not exist.
func TestGuardListenNeedsToken(t *testing.T) {
	t.Setenv("SALVE_SERVER_TOKEN", "")
	t.Setenv("SALVE_UI_TOKEN", "")
	t.Setenv("SALVE_MCP_TOKEN", "")
	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"serve", "--listen", "0.0.0.0:0", "--data", data, "--workers", "0"}, []string{"not a loopback address", "$SALVE_SERVER_TOKEN", "--insecure-no-token"}},
		{[]string{"serve", "--listen", ":0", "--data", data, "--workers", "0"}, []string{"$SALVE_SERVER_TOKEN"}},
		{[]string{"ui", "--listen", "0.0.0.0:0", "--store", filepath.Join(data, "none.db")}, []string{"not a loopback address", "$SALVE_UI_TOKEN", "--insecure-no-token"}},
		{[]string{"mcp", "--http", "0", "--listen-address", "0.0.0.0", "--no-store"}, []string{"give --token", "$SALVE_MCP_TOKEN", "--insecure-no-token"}},
	} {
		code, out, errOut := runSalve(t, tc.args...)
		if code != exitBadInput || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, errOut, w)
			}
		}
	}
}

var warning = regexp.MustCompile(`^WARNING: .* listens on .* with no token \(--insecure-no-token\)`)

// TestGuardInsecureNoTokenUI: with --insecure-no-token, salve ui starts
// on every interface and warns; a connection through loopback still has
// its Host checked. On main the flag did not exist.
func TestGuardInsecureNoTokenUI(t *testing.T) {
	t.Setenv("SALVE_UI_TOKEN", "")
	path := filepath.Join(t.TempDir(), "runs.db")
	st := openStore(t, path)
	_ = st.Close()
	s := serveInBackground(t, "ui", "--listen", "0.0.0.0:0", "--store", path, "--insecure-no-token")
	s.waitFor(t, warning)
	p := port(t, s.waitFor(t, regexp.MustCompile(`serving .* on http://(\S+)/`))[1])
	url := "http://127.0.0.1:" + p + "/"
	if code := status(t, "GET", url, "evil.example:"+p, "", ""); code != 403 {
		t.Fatalf("rebound Host: %d", code)
	}
	for _, host := range []string{"127.0.0.1:" + p, "localhost:" + p} {
		if code := status(t, "GET", url, host, "", ""); code != 200 {
			t.Fatalf("Host %s: %d", host, code)
		}
	}
}

// TestGuardInsecureNoTokenMCP: the same for salve mcp --http.
func TestGuardInsecureNoTokenMCP(t *testing.T) {
	t.Setenv("SALVE_MCP_TOKEN", "")
	s := serveInBackground(t, "mcp", "--http", "0", "--listen-address", "0.0.0.0", "--no-store", "--insecure-no-token")
	s.waitFor(t, warning)
	p := port(t, s.waitFor(t, regexp.MustCompile(`at http://(\S+)/mcp`))[1])
	if code := status(t, "GET", "http://127.0.0.1:"+p+"/health", "evil.example:"+p, "", ""); code != 403 {
		t.Fatalf("rebound Host: %d", code)
	}
	if code := status(t, "GET", "http://127.0.0.1:"+p+"/health", "localhost:"+p, "", ""); code != 200 {
		t.Fatalf("localhost: %d", code)
	}
}

// TestGuardServe: salve serve with --insecure-no-token starts beyond
// loopback and warns; through the real listener a web page's cross-site
// text/plain POST and a rebound Host queue nothing, and a program's JSON
// POST queues a job. On main the flag did not exist, and both page
// requests queued a job.
func TestGuardServe(t *testing.T) {
	t.Setenv("SALVE_SERVER_TOKEN", "")
	t.Setenv("SALVE_NATS_TOKEN", "")
	s := serveInBackground(t, "serve", "--listen", "0.0.0.0:0", "--insecure-no-token", "--data", t.TempDir(),
		"--nats-listen", "127.0.0.1:0", "--workers", "0")
	s.waitFor(t, warning)
	p := port(t, s.waitFor(t, regexp.MustCompile(`API on http://(\S+),`))[1])
	api := "http://127.0.0.1:" + p + "/api/v1/heals"
	job := `{"repo": "https://git.example.com/a/b.git", "ref": "main", "cmd": "touch /tmp/pwned"}`
	req, _ := http.NewRequest("POST", api, strings.NewReader(job))
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Sec-Fetch-Mode", "no-cors")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("cross-site text/plain POST: %d", resp.StatusCode)
	}
	if code := status(t, "POST", api, "evil.example:"+p, "application/json", job); code != 403 {
		t.Fatalf("rebound Host: %d", code)
	}
	if code := status(t, "POST", api, "127.0.0.1:"+p, "text/plain", job); code != 415 {
		t.Fatalf("text/plain from a program: %d", code)
	}
	resp, err = http.Get(api)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"total":0`) {
		t.Fatalf("refused requests queued a job: %s", b)
	}
	if code := status(t, "POST", api, "localhost:"+p, "application/json", job); code != 202 {
		t.Fatalf("a program's POST: %d", code)
	}
}

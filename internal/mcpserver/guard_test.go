package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGuardMCPHTTP: salve mcp --http keeps refusing what it refused with
// its own checks (a rebound Host on /mcp, a page of another origin, a
// missing token) now that the shared guard makes them, and the guard also
// covers /health, whose Host nothing checked on main, and text/plain
// bodies. An SDK client under 127.0.0.1 and under localhost still works.
func TestGuardMCPHTTP(t *testing.T) {
	s := New(Options{Token: "sekret"})
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer s.shutdown()
	port := hs.Listener.Addr().String()[len("127.0.0.1:"):]
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name, method, path, host, body string
		hdr                            map[string]string
		want                           int
	}{
		{"health, rebound", "GET", "/health", "evil.example:" + port, "", nil, 403},
		{"health, localhost", "GET", "/health", "localhost:" + port, "", nil, 200},
		{"health, 127.0.0.1", "GET", "/health", "127.0.0.1:" + port, "", nil, 200},
		{"mcp, rebound", "POST", "/mcp", "evil.example:" + port, initialize, map[string]string{"Authorization": "Bearer sekret", "Content-Type": "application/json"}, 403},
		{"mcp, cross-site page", "POST", "/mcp", "", initialize, map[string]string{"Authorization": "Bearer sekret", "Content-Type": "text/plain", "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, 403},
		{"mcp, text/plain", "POST", "/mcp", "", initialize, map[string]string{"Authorization": "Bearer sekret", "Content-Type": "text/plain"}, 415},
		{"mcp, no token", "POST", "/mcp", "", initialize, map[string]string{"Content-Type": "application/json"}, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, hs.URL+tc.path, strings.NewReader(tc.body))
			if tc.host != "" {
				req.Host = tc.host
			}
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, b)
			}
			if tc.want == 401 && resp.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Fatalf("401 without WWW-Authenticate: %v", resp.Header)
			}
		})
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: "http://" + host + "/mcp",
			HTTPClient: &http.Client{Transport: dialTo{hs.Listener.Addr().String(), "sekret"}}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("%s: list tools: %v", host, err)
		}
		cs.Close()
	}
}

// dialTo sends every request to addr, keeping the URL's host as Host,
// with the bearer token.
type dialTo struct{ addr, token string }

func (d dialTo) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = r.URL.Host
	r.URL.Host = d.addr
	r.Header.Set("Authorization", "Bearer "+d.token)
	return http.DefaultTransport.RoundTrip(r)
}

package httpguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// loopback and public are the local addresses a request arrives on.
var (
	loopback = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7878}
	public   = &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 7878}
)

func request(method, target string, local net.Addr, hdr map[string]string, body string) *http.Request {
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, target, nil)
	} else {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
	}
	r.Host = "127.0.0.1:7878"
	for k, v := range hdr {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	if local != nil {
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
	}
	return r
}

// TestCheck is the guard's rule table: each row one request and the status
// it gets (0: served).
func TestCheck(t *testing.T) {
	api := Guard{
		Token:        Token{Value: "s3cret", Header: "X-Api-Key", Cookie: SessionCookie},
		Rules:        []Rule{{Path: "/webhooks/", NoToken: true, AnyBody: true}, {Path: "/healthz", NoToken: true}},
		JSON:         true,
		MaxBodyBytes: 64,
	}
	open := Guard{JSON: true}
	viewer := Guard{Navigation: true}
	widget := Guard{JSON: true, Origins: []string{"https://shop.example", "http://localhost:3000"}, Rules: []Rule{{Path: "/widget.js", AnySite: true}}}
	auth := map[string]string{"Authorization": "Bearer s3cret"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name   string
		g      Guard
		method string
		path   string
		local  net.Addr
		hdr    map[string]string
		body   string
		want   int
	}{
		{"program, own host", open, "GET", "/x", loopback, nil, "", 0},
		{"localhost with port", open, "GET", "/x", loopback, map[string]string{"Host": "localhost:7878"}, "", 0},
		{"localhost without port", open, "GET", "/x", loopback, map[string]string{"Host": "localhost"}, "", 0},
		{"LOCALHOST", open, "GET", "/x", loopback, map[string]string{"Host": "LOCALHOST:1"}, "", 0},
		{"127.5.6.7", open, "GET", "/x", loopback, map[string]string{"Host": "127.5.6.7:80"}, "", 0},
		{"[::1]:port", open, "GET", "/x", loopback, map[string]string{"Host": "[::1]:7878"}, "", 0},
		{"[::1]", open, "GET", "/x", loopback, map[string]string{"Host": "[::1]"}, "", 0},
		{"rebound name", open, "GET", "/x", loopback, map[string]string{"Host": "evil.example:7878"}, "", 403},
		{"rebound name, no port", open, "GET", "/x", loopback, map[string]string{"Host": "evil.example"}, "", 403},
		{"localhost.evil", open, "GET", "/x", loopback, map[string]string{"Host": "localhost.evil.example"}, "", 403},
		{"127.0.0.1.nip", open, "GET", "/x", loopback, map[string]string{"Host": "127.0.0.1.nip.io"}, "", 403},
		{"empty host", open, "GET", "/x", loopback, map[string]string{"Host": ""}, "", 403},
		{"lan address", open, "GET", "/x", loopback, map[string]string{"Host": "192.168.1.2:7878"}, "", 403},
		{"mapped v4", open, "GET", "/x", loopback, map[string]string{"Host": "[::ffff:127.0.0.1]"}, "", 403},
		{"bad port", open, "GET", "/x", loopback, map[string]string{"Host": "localhost:http"}, "", 403},
		{"foreign host off loopback", open, "GET", "/x", public, map[string]string{"Host": "salve.example.com"}, "", 0},
		{"no local address", open, "GET", "/x", nil, map[string]string{"Host": "salve.example.com"}, "", 0},
		{"same origin", open, "POST", "/x", loopback, map[string]string{"Origin": "http://127.0.0.1:7878", "Content-Type": "application/json"}, "{}", 0},
		{"cross-site text/plain", open, "POST", "/x", loopback, map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"}, "{}", 403},
		{"origin other port", open, "POST", "/x", loopback, map[string]string{"Origin": "http://127.0.0.1:3000"}, "{}", 403},
		{"origin null", open, "POST", "/x", loopback, map[string]string{"Origin": "null"}, "{}", 403},
		{"cross-origin off loopback", open, "POST", "/x", public, map[string]string{"Host": "salve.example.com", "Origin": "https://evil.example"}, "{}", 403},
		{"same-origin off loopback", open, "GET", "/x", public, map[string]string{"Host": "salve.example.com", "Origin": "https://salve.example.com"}, "", 0},
		{"fetch metadata cross-site", open, "GET", "/x", loopback, map[string]string{"Sec-Fetch-Site": "cross-site"}, "", 403},
		{"fetch metadata same-site", open, "GET", "/x", loopback, map[string]string{"Sec-Fetch-Site": "same-site"}, "", 403},
		{"fetch metadata same-origin", open, "GET", "/x", loopback, map[string]string{"Sec-Fetch-Site": "same-origin"}, "", 0},
		{"typed url", open, "GET", "/x", loopback, map[string]string{"Sec-Fetch-Site": "none"}, "", 0},
		{"link into a viewer", viewer, "GET", "/runs/1", loopback, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, "", 0},
		{"link into an api", open, "GET", "/v1/chat", loopback, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, "", 403},
		{"viewer fetch cross-site", viewer, "GET", "/runs/1", loopback, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, "", 403},
		{"viewer form post cross-site", viewer, "POST", "/runs/1", loopback, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, "a=1", 403},
		{"allowed origin", widget, "POST", "/v1/chat", loopback, map[string]string{"Origin": "https://shop.example", "Content-Type": "application/json"}, "{}", 0},
		{"allowed origin preflight", widget, "OPTIONS", "/v1/chat", loopback, map[string]string{"Origin": "http://localhost:3000"}, "", 0},
		{"allowed origin, other scheme", widget, "POST", "/v1/chat", loopback, map[string]string{"Origin": "http://shop.example"}, "{}", 403},
		{"allowed origin, other port", widget, "POST", "/v1/chat", loopback, map[string]string{"Origin": "https://shop.example:8443"}, "{}", 403},
		{"allowed origin, suffix", widget, "POST", "/v1/chat", loopback, map[string]string{"Origin": "https://shop.example.evil"}, "{}", 403},
		{"allowed origin, twice", widget, "POST", "/v1/chat", loopback, map[string]string{"Origin": "https://shop.example, https://shop.example"}, "{}", 403},
		{"allowed origin, still own host", widget, "POST", "/v1/chat", loopback, map[string]string{"Host": "evil.example", "Origin": "https://shop.example"}, "{}", 403},
		{"unlisted origin", widget, "POST", "/v1/chat", loopback, map[string]string{"Origin": "https://evil.example"}, "{}", 403},
		{"script from any site", widget, "GET", "/widget.js", loopback, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"}, "", 0},
		{"any-site path, post", widget, "POST", "/widget.js", loopback, map[string]string{"Sec-Fetch-Site": "cross-site"}, "", 403},
		{"any-site path, unlisted origin", widget, "GET", "/widget.js", loopback, map[string]string{"Origin": "https://evil.example"}, "", 403},
		{"other path, cross-site", widget, "GET", "/v1/other", loopback, map[string]string{"Sec-Fetch-Site": "cross-site"}, "", 403},
		{"text/plain without origin", open, "POST", "/x", loopback, map[string]string{"Content-Type": "text/plain"}, "{}", 415},
		{"form body", open, "POST", "/x", loopback, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "a=1", 415},
		{"json with charset", open, "POST", "/x", loopback, map[string]string{"Content-Type": "application/json; charset=utf-8"}, "{}", 0},
		{"json upper case", open, "POST", "/x", loopback, map[string]string{"Content-Type": "Application/JSON"}, "{}", 0},
		{"no content type", open, "POST", "/x", loopback, nil, "{}", 0},
		{"empty content type", open, "POST", "/x", loopback, map[string]string{"Content-Type": ""}, "{}", 415},
		{"text/plain, no body", open, "POST", "/x", loopback, map[string]string{"Content-Type": "text/plain"}, "", 0},
		{"no token", api, "GET", "/api/v1/heals", loopback, nil, "", 401},
		{"wrong token", api, "GET", "/api/v1/heals", loopback, map[string]string{"Authorization": "Bearer nope"}, "", 401},
		{"basic auth", api, "GET", "/api/v1/heals", loopback, map[string]string{"Authorization": "Basic czNjcmV0"}, "", 401},
		{"bearer", api, "GET", "/api/v1/heals", loopback, auth, "", 0},
		{"bearer lower case", api, "GET", "/api/v1/heals", loopback, map[string]string{"Authorization": "bearer  s3cret "}, "", 0},
		{"api key header", api, "GET", "/api/v1/heals", loopback, map[string]string{"X-Api-Key": "s3cret"}, "", 0},
		{"cookie", api, "GET", "/", loopback, map[string]string{"Cookie": SessionCookie + "=s3cret"}, "", 0},
		{"wrong bearer, right key", api, "GET", "/", loopback, map[string]string{"Authorization": "Bearer nope", "X-Api-Key": "s3cret"}, "", 401},
		{"health, no token", api, "GET", "/healthz", loopback, nil, "", 0},
		{"health prefix is exact", api, "GET", "/healthz/x", loopback, nil, "", 401},
		{"webhook, no token, any type", api, "POST", "/webhooks/github", loopback, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "payload=1", 0},
		{"webhook, foreign host", api, "POST", "/webhooks/github", loopback, map[string]string{"Host": "evil.example"}, "{}", 403},
		{"webhook, cross-site page", api, "POST", "/webhooks/github", loopback, map[string]string{"Origin": "http://evil.example"}, "{}", 403},
		{"host checked before token", api, "GET", "/api/v1/heals", loopback, map[string]string{"Host": "evil.example"}, "", 403},
		{"token checked before type", api, "POST", "/api/v1/heals", loopback, map[string]string{"Content-Type": "text/plain"}, "{}", 401},
		{"body too large", api, "POST", "/api/v1/heals", loopback, with(auth, "Content-Type", "application/json"), strings.Repeat("x", 65), 413},
		{"body at the limit", api, "POST", "/api/v1/heals", loopback, with(auth, "Content-Type", "application/json"), strings.Repeat("x", 64), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request(tt.method, tt.path, tt.local, tt.hdr, tt.body)
			got := 0
			if ref := tt.g.Check(r); ref != nil {
				got = ref.Status
				if ref.Reason == "" {
					t.Error("a refusal without a reason")
				}
			}
			if got != tt.want {
				t.Fatalf("status %d, want %d", got, tt.want)
			}
		})
	}
}

// TestHandler: a refused request never reaches the handler, gets the
// server's own format, and a 401 names the scheme; an allowed body is
// bounded.
func TestHandler(t *testing.T) {
	reached := 0
	h := Guard{Token: Token{Value: "t"}, MaxBodyBytes: 4, Deny: func(w http.ResponseWriter, _ *http.Request, status int, reason string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":"` + reason + `"}`))
	}}.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		buf := make([]byte, 16)
		n, err := r.Body.Read(buf)
		var mbe *http.MaxBytesError
		for err == nil && n > 0 {
			n, err = r.Body.Read(buf)
		}
		if !errors.As(err, &mbe) {
			t.Errorf("an unbounded body: %v", err)
		}
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, request("GET", "/", loopback, nil, ""))
	if rec.Code != 401 || rec.Header().Get("WWW-Authenticate") != "Bearer" || !strings.Contains(rec.Body.String(), `"error":"missing or invalid bearer token"`) {
		t.Fatalf("no token: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	// A chunked body of unknown length is bounded while it is read.
	r := request("POST", "/", loopback, map[string]string{"Authorization": "Bearer t"}, "")
	r.Body, r.ContentLength = ioNopCloser("0123456789"), -1
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if reached != 1 {
		t.Fatalf("handler reached %d times, want 1", reached)
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

func ioNopCloser(s string) nopCloser { return nopCloser{strings.NewReader(s)} }

func TestLocalHostAndSameOrigin(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "localhost:80": true, "127.0.0.1": true, "127.255.0.9:65535": true, "[::1]": true, "[::1]:8080": true,
		"::1": false, "[::1%lo]": false, "[::1]8080": false, "[::1]:": false, "localhost:": false, ":80": false, "127.1": false,
		"0.0.0.0": false, "[::]": false, "[127.0.0.1]": false, "localhost:123456": false, "a:b:c": false, "localhost:-1": false,
	} {
		if got := LocalHost(h); got != want {
			t.Errorf("LocalHost(%q) = %v, want %v", h, got, want)
		}
	}
	for _, tc := range []struct {
		origin, host string
		want         bool
	}{
		{"http://127.0.0.1:7878", "127.0.0.1:7878", true},
		{"HTTP://LOCALHOST:1", "localhost:1", true},
		{"https://salve.example", "salve.example", true},
		{"http://127.0.0.1:7878/", "127.0.0.1:7878", false},
		{"http://user@127.0.0.1:7878", "127.0.0.1:7878", false},
		{"ftp://127.0.0.1:7878", "127.0.0.1:7878", false},
		{"null", "null", false},
		{"http://", "", false},
		{"http://localhost", "localhost:80", false},
	} {
		if got := SameOrigin(tc.origin, tc.host); got != tc.want {
			t.Errorf("SameOrigin(%q, %q) = %v, want %v", tc.origin, tc.host, got, tc.want)
		}
	}
}

func TestListenCheck(t *testing.T) {
	base := Listen{Server: "salve serve", Flag: "--listen", TokenHint: "$SALVE_SERVER_TOKEN", Risk: "queue heals"}
	for _, tc := range []struct {
		addr, token string
		insecure    bool
		warn, err   bool
	}{
		{"127.0.0.1:8080", "", false, false, false},
		{"localhost:8080", "", false, false, false},
		{"[::1]:8080", "", false, false, false},
		{"::1", "", false, false, false},
		{"127.0.0.2", "", false, false, false},
		{"0.0.0.0:8080", "", false, false, true},
		{":8080", "", false, false, true},
		{"salve.internal:8080", "", false, false, true},
		{"0.0.0.0:8080", "t", false, false, false},
		{"0.0.0.0:8080", "", true, true, false},
		{"127.0.0.1:8080", "", true, false, false},
	} {
		l := base
		l.Addr, l.Token, l.Insecure = tc.addr, tc.token, tc.insecure
		warn, err := l.Check()
		if (warn != "") != tc.warn || (err != nil) != tc.err {
			t.Errorf("%+v: warning %q, error %v", tc, warn, err)
		}
		if err != nil && (!errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "$SALVE_SERVER_TOKEN") || !strings.Contains(err.Error(), InsecureFlag)) {
			t.Errorf("%s: the error does not say what to do: %v", tc.addr, err)
		}
		if warn != "" && (!strings.Contains(warn, "queue heals") || !strings.Contains(warn, "$SALVE_SERVER_TOKEN")) {
			t.Errorf("%s: warning %q", tc.addr, warn)
		}
	}
}

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		ok        bool
	}{{"a", "a", true}, {"a", "b", false}, {"", "", false}, {"a", "", false}, {"", "a", false}, {"abc", "ab", false}} {
		if Equal(tc.got, tc.want) != tc.ok {
			t.Errorf("Equal(%q, %q) != %v", tc.got, tc.want, tc.ok)
		}
	}
}

package httpguard

import (
	"net"
	"strings"
	"testing"
)

// FuzzLocalHost: a Host header LocalHost accepts is a loopback host with,
// at most, a numeric port, by the standard library's own split.
func FuzzLocalHost(f *testing.F) {
	for _, s := range []string{"localhost", "127.0.0.1:80", "[::1]:8080", "[::1]", "evil.example", "[::1", "a:b", "127.0.0.1:", "[::ffff:127.0.0.1]", "localhost:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if !LocalHost(h) {
			return
		}
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			host, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ""
		}
		if !LoopbackHost(host) || strings.Trim(port, "0123456789") != "" {
			t.Fatalf("LocalHost(%q) accepted host %q port %q", h, host, port)
		}
	})
}

// FuzzSameOrigin: an origin SameOrigin accepts is http:// or https://
// followed by the host itself.
func FuzzSameOrigin(f *testing.F) {
	for _, s := range [][2]string{{"http://127.0.0.1:1", "127.0.0.1:1"}, {"null", ""}, {"https://a/b", "a/b"}, {"http://a@b", "a@b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, origin, host string) {
		if !SameOrigin(origin, host) {
			return
		}
		if !asciiEqualFold(origin, "http://"+host) && !asciiEqualFold(origin, "https://"+host) {
			t.Fatalf("SameOrigin(%q, %q)", origin, host)
		}
		if strings.ContainsAny(host, "/?#@") {
			t.Fatalf("SameOrigin accepted a host with a path or user: %q", host)
		}
	})
}

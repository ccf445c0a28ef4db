// Package httpguardtest sends the requests the guard tests of salve's
// HTTP servers make: one request with a chosen Host header, as a page
// whose name was rebound to 127.0.0.1 would send it. It is test support:
// only _test.go files import it.
package httpguardtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Send makes one request of method to url with body and the headers hdr,
// under the Host header host (the URL's own host when host is empty), and
// returns the status code and the body. Any failure to send it or read
// the answer fails the test.
func Send(t testing.TB, method, url, host, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	// The timeout fails a test whose server never answers instead of
	// hanging it.
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return resp.StatusCode, string(b)
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestClassifyHTTP(t *testing.T) {
	now := time.Now()
	date := now.Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		status     int
		retryAfter string
		body       string
		class      Class
		minRetry   time.Duration
		maxRetry   time.Duration
	}{
		{"401", 401, "", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, ClassAuth, 0, 0},
		{"403 plain", 403, "", `{"type":"error","error":{"type":"permission_error","message":"not allowed"}}`, ClassAuth, 0, 0},
		{"403 quota", 403, "", `{"error":{"message":"You exceeded your current quota"}}`, ClassQuota, 0, 0},
		{"403 billing", 403, "", `{"error":"Billing hard limit reached"}`, ClassQuota, 0, 0},
		{"402", 402, "", `{"error":{"message":"Insufficient credits","code":402}}`, ClassQuota, 0, 0},
		{"429 insufficient_quota", 429, "3", `{"error":{"message":"x","type":"insufficient_quota","code":"insufficient_quota"}}`, ClassQuota, 0, 0},
		{"429 seconds", 429, "7", `{"error":{"message":"Rate limit reached","type":"requests"}}`, ClassRateLimit, 7 * time.Second, 7 * time.Second},
		{"429 decimal seconds", 429, "0.5", `{}`, ClassRateLimit, 500 * time.Millisecond, 500 * time.Millisecond},
		{"429 http date", 429, date, `{}`, ClassRateLimit, 85 * time.Second, 91 * time.Second},
		{"429 no header", 429, "", `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, ClassRateLimit, 0, 0},
		{"429 bad header", 429, "soon", ``, ClassRateLimit, 0, 0},
		{"400", 400, "", `{"error":{"message":"Unknown parameter"}}`, ClassModel, 0, 0},
		{"404 model", 404, "", `{"error":"model 'x' not found"}`, ClassModel, 0, 0},
		{"408", 408, "", ``, ClassTimeout, 0, 0},
		{"500", 500, "", `internal`, ClassServer, 0, 0},
		{"503", 503, "", `<html>unavailable</html>`, ClassServer, 0, 0},
		{"529 overloaded", 529, "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, ClassServer, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.retryAfter != "" {
				h.Set("Retry-After", tt.retryAfter)
			}
			e := ClassifyHTTP("prov", tt.status, h, []byte(tt.body))
			if e.Class != tt.class || e.Status != tt.status {
				t.Fatalf("got %s/%d, want %s/%d", e.Class, e.Status, tt.class, tt.status)
			}
			if e.RetryAfter < tt.minRetry || e.RetryAfter > tt.maxRetry {
				t.Fatalf("RetryAfter %v, want in [%v, %v]", e.RetryAfter, tt.minRetry, tt.maxRetry)
			}
			if !strings.HasPrefix(e.Message, fmt.Sprintf("prov: HTTP %d", tt.status)) {
				t.Fatalf("message %q", e.Message)
			}
		})
	}
}

func TestClassifyHTTPRedactsAndQuotes(t *testing.T) {
	key := "sk-secret-123456"
	body := `{"error":{"message":"Incorrect API key provided: ` + key + `. You can find your key at https://example."}}`
	e := ClassifyHTTP("openai", 401, nil, []byte(body), key)
	if strings.Contains(e.Error(), key) || !strings.Contains(e.Message, "[REDACTED]") {
		t.Fatalf("key not redacted: %q", e.Message)
	}
	if !strings.Contains(e.Message, "Incorrect API key provided") {
		t.Fatalf("provider text missing: %q", e.Message)
	}
	long := ClassifyHTTP("x", 500, nil, []byte(strings.Repeat("é", 1000)))
	if len(long.Message) > maxErrorText+40 {
		t.Fatalf("message not cut: %d bytes", len(long.Message))
	}
}

func TestClassifyStreamError(t *testing.T) {
	tests := []struct {
		typ, msg string
		class    Class
	}{
		{"overloaded_error", "Overloaded", ClassServer},
		{"api_error", "Internal", ClassServer},
		{"rate_limit_error", "slow", ClassRateLimit},
		{"authentication_error", "bad key", ClassAuth},
		{"permission_error", "nope", ClassAuth},
		{"insufficient_quota", "", ClassQuota},
		{"billing_error", "pay", ClassQuota},
		{"invalid_request_error", "bad", ClassModel},
		{"", "something odd", ClassServer},
	}
	for _, tt := range tests {
		if e := ClassifyStreamError("p", tt.typ, tt.msg); e.Class != tt.class {
			t.Errorf("%s/%s: got %s, want %s", tt.typ, tt.msg, e.Class, tt.class)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestClassifyTransport(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	tests := []struct {
		name  string
		ctx   context.Context
		err   error
		class Class
	}{
		{"deadline context", expired, errors.New("read: use of closed connection"), ClassTimeout},
		{"deadline error", context.Background(), fmt.Errorf("post: %w", context.DeadlineExceeded), ClassTimeout},
		{"net timeout", context.Background(), timeoutErr{}, ClassTimeout},
		{"cancelled", cancelled, errors.New("x"), ClassNetwork},
		{"refused", context.Background(), refused, ClassNetwork},
		{"truncated", context.Background(), fmt.Errorf("read body: %w", io.ErrUnexpectedEOF), ClassInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ClassifyTransport(tt.ctx, "op", tt.err)
			if e.Class != tt.class || !strings.HasPrefix(e.Message, "op: ") {
				t.Fatalf("got %s %q, want %s", e.Class, e.Message, tt.class)
			}
		})
	}
	if e := ClassifyTransport(cancelled, "op", errors.New("x")); !errors.Is(e, context.Canceled) {
		t.Fatal("cancelled error does not wrap context.Canceled")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"10":                            10 * time.Second,
		" 2 ":                           2 * time.Second,
		"1.25":                          1250 * time.Millisecond,
		"-1":                            0,
		"0":                             0,
		"abc":                           0,
		"Fri, 02 Jan 2026 03:05:05 GMT": time.Minute,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0,
	}
	for in, want := range tests {
		if got := ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestErrorText(t *testing.T) {
	tests := map[string]string{
		`{"error":{"message":"m1","type":"t"}}`: "m1",
		`{"error":"m2"}`:                        "m2",
		`{"message":"m3"}`:                      "m3",
		"  plain\n text ":                       "plain text",
		`{"error":{}}`:                          `{"error":{}}`,
	}
	for in, want := range tests {
		if got := ErrorText([]byte(in)); got != want {
			t.Errorf("ErrorText(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzClassifyHTTP(f *testing.F) {
	f.Add(429, "5", []byte(`{"error":{"message":"quota"}}`))
	f.Add(401, "", []byte(`{"error":"x"}`))
	f.Add(503, "Wed, 21 Oct 2015 07:28:00 GMT", []byte("\xff"))
	f.Fuzz(func(t *testing.T, status int, retry string, body []byte) {
		h := http.Header{}
		h.Set("Retry-After", retry)
		e := ClassifyHTTP("p", status, h, body, "secret-key")
		if e.Class == "" || e.RetryAfter < 0 {
			t.Fatalf("bad classification %+v", e)
		}
	})
}

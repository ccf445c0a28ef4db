package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxErrorText bounds the provider text quoted in an [Error] message.
const maxErrorText = 300

// quotaWords are the body fragments that turn a 403 or 429 into a quota
// failure (docs/contracts/ai-agent-cli.md §9.4). They are matched
// case-insensitively.
var quotaWords = []string{"insufficient_quota", "quota", "billing"}

// ClassifyHTTP classifies a provider's non-2xx HTTP answer
// (docs/contracts/ai-agent-cli.md §9.4):
//
//   - 401, or 403 without quota wording: [ClassAuth];
//   - 402, or 403/429 whose body mentions insufficient_quota, quota or
//     billing: [ClassQuota];
//   - any other 429: [ClassRateLimit], with RetryAfter from the
//     Retry-After header (seconds or an HTTP date);
//   - 408: [ClassTimeout];
//   - 5xx (including Anthropic's 529): [ClassServer];
//   - any other status (400 bad request, 404 unknown model, 413 too
//     large…): [ClassModel].
//
// provider names the wire API for the message ("openai", "anthropic"…).
// The message quotes the provider's own error text, cut to a few hundred
// characters, with every secret in secrets replaced by "[REDACTED]".
func ClassifyHTTP(provider string, status int, header http.Header, body []byte, secrets ...string) *Error {
	text := Redact(ErrorText(body), secrets...)
	msg := fmt.Sprintf("%s: HTTP %d", provider, status)
	if text != "" {
		msg += ": " + text
	}
	e := &Error{Class: ClassModel, Status: status, Message: msg}
	quota := mentionsQuota(body)
	switch {
	case status == http.StatusUnauthorized:
		e.Class = ClassAuth
	case status == http.StatusPaymentRequired:
		e.Class = ClassQuota
	case status == http.StatusForbidden && quota:
		e.Class = ClassQuota
	case status == http.StatusForbidden:
		e.Class = ClassAuth
	case status == http.StatusTooManyRequests && quota:
		e.Class = ClassQuota
	case status == http.StatusTooManyRequests:
		e.Class = ClassRateLimit
		if header != nil {
			e.RetryAfter = ParseRetryAfter(header.Get("Retry-After"), time.Now())
		}
	case status == http.StatusRequestTimeout:
		e.Class = ClassTimeout
	case status >= 500:
		e.Class = ClassServer
	}
	return e
}

// ClassifyStreamError classifies an error reported inside a 200 response,
// such as an SSE "error" event or an NDJSON {"error": …} line, from the
// provider's error type or code (errType, e.g. "rate_limit_error",
// "overloaded_error", "insufficient_quota") and its message. Unknown types
// are [ClassServer]: the request was accepted and failed on the provider's
// side, so the engine moves to the next target at once.
func ClassifyStreamError(provider, errType, message string, secrets ...string) *Error {
	low := strings.ToLower(errType + " " + message)
	msg := fmt.Sprintf("%s: stream error", provider)
	if errType != "" {
		msg += " " + errType
	}
	if message != "" {
		msg += ": " + cut(Redact(message, secrets...))
	}
	e := &Error{Class: ClassServer, Message: msg}
	switch {
	case containsAny(low, quotaWords):
		e.Class = ClassQuota
	case strings.Contains(low, "authentication") || strings.Contains(low, "permission") ||
		strings.Contains(low, "invalid_api_key"):
		e.Class = ClassAuth
	case strings.Contains(low, "rate_limit") || strings.Contains(low, "rate limit"):
		e.Class = ClassRateLimit
	case strings.Contains(low, "invalid_request") || strings.Contains(low, "not_found") ||
		strings.Contains(low, "context_length"):
		e.Class = ClassModel
	}
	return e
}

// ClassifyTransport classifies an error from sending a request or reading
// its body: a context deadline or client timeout is [ClassTimeout], a
// cancelled context is [ClassNetwork] wrapping [context.Canceled], a body
// cut short (io.ErrUnexpectedEOF) is [ClassInvalidResponse], and anything
// else is [ClassNetwork]. op names the step ("openai: send request").
// ctx is the request's context; its error wins over err's, because a
// deadline often surfaces as a plain read error.
func ClassifyTransport(ctx context.Context, op string, err error, secrets ...string) *Error {
	text := Redact(err.Error(), secrets...)
	if ctx != nil {
		switch ctx.Err() {
		case context.DeadlineExceeded:
			return &Error{Class: ClassTimeout, Message: op + ": request timed out", Err: err}
		case context.Canceled:
			return &Error{Class: ClassNetwork, Message: op + ": request cancelled", Err: errors.Join(context.Canceled, err)}
		}
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &Error{Class: ClassTimeout, Message: op + ": request timed out", Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Class: ClassInvalidResponse, Message: op + ": truncated response: " + cut(text), Err: err}
	}
	return &Error{Class: ClassNetwork, Message: op + ": " + cut(text), Err: err}
}

// InvalidResponse returns a [ClassInvalidResponse] error for a body that
// could not be decoded or a stream that ended early.
func InvalidResponse(op string, err error) *Error {
	msg := op
	if err != nil {
		msg += ": " + cut(err.Error())
	}
	return &Error{Class: ClassInvalidResponse, Message: msg, Err: err}
}

// ParseRetryAfter reads a Retry-After header value: a non-negative number
// of seconds (decimals allowed) or an HTTP date, which is measured from
// now. It returns 0 for an empty, invalid or past value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 86400*365 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if d := t.Sub(now); d > 0 {
		return d
	}
	return 0
}

// ErrorText extracts the human-readable message of a provider error body:
// error.message (OpenAI, Anthropic), a string error (Ollama), or message.
// Other bodies are returned trimmed and cut short.
func ErrorText(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return cut(s)
		}
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			return cut(obj.Message)
		}
		if v.Message != "" {
			return cut(v.Message)
		}
	}
	return cut(strings.TrimSpace(string(body)))
}

// Redact replaces every non-empty secret in s with "[REDACTED]". Providers
// pass their API key so that an echoed key never reaches result.error.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}

func mentionsQuota(body []byte) bool {
	return containsAny(strings.ToLower(string(body)), quotaWords)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// cut shortens s to maxErrorText bytes at a rune boundary, on one line.
func cut(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxErrorText {
		return s
	}
	i := maxErrorText
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// EmitWhole sends a whole response to onDelta (when not nil) as one
// reasoning delta and one text delta: what a provider does when a streamed
// request was answered with a single JSON document.
func EmitWhole(resp Response, onDelta func(Delta)) {
	if onDelta == nil {
		return
	}
	for _, r := range resp.Reasoning {
		if r.Text != "" {
			onDelta(Delta{Reasoning: r.Text})
		}
	}
	if resp.Content != "" {
		onDelta(Delta{Text: resp.Content})
	}
}

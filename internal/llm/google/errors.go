package google

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/llm"
)

// apiError is the error object of the API (a google.rpc.Status): the HTTP
// code, the message, the canonical status name and typed details.
type apiError struct {
	Code    int               `json:"code"`
	Message string            `json:"message"`
	Status  string            `json:"status"`
	Details []json.RawMessage `json:"details"`
}

// detail is the part of a google.rpc detail the classification reads:
// RetryInfo's retryDelay and ErrorInfo's reason.
type detail struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
	Reason     string `json:"reason"`
}

// classifyHTTP classifies a non-2xx answer. The body is {"error": {...}},
// or a one-element array of it; without a google.rpc status in it, the
// status code decides as for every provider ([llm.ClassifyHTTP]).
func classifyHTTP(status int, header http.Header, body []byte, secrets []string) *llm.Error {
	e := llm.ClassifyHTTP("google", status, header, body, secrets...)
	var doc struct {
		Error *apiError `json:"error"`
	}
	b := bytes.TrimSpace(body)
	if len(b) > 0 && b[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(b, &arr) == nil && len(arr) > 0 {
			b = arr[0]
		}
	}
	if json.Unmarshal(b, &doc) != nil || doc.Error == nil || doc.Error.Status == "" {
		return e
	}
	refine(e, status, doc.Error, header)
	return e
}

// classifyStatus classifies an error object met inside a 200 answer (a
// stream chunk or a whole body).
func classifyStatus(code int, status, message string, header http.Header, details []json.RawMessage, secrets []string) *llm.Error {
	e := llm.ClassifyStreamError("google", status, message, secrets...)
	if status != "" || code != 0 {
		refine(e, code, &apiError{Code: code, Status: status, Message: message, Details: details}, header)
	}
	return e
}

// refine sets the class from the google.rpc status name, which says more
// than the HTTP status:
//
//   - RESOURCE_EXHAUSTED is a rate limit (Gemini's 429s all speak of quota,
//     yet are per-minute and per-day limits), with the wait of the
//     RetryInfo detail or Retry-After; with HTTP 402 (prepaid credit
//     spent) it is quota;
//   - UNAUTHENTICATED and PERMISSION_DENIED are auth, and so is an
//     INVALID_ARGUMENT about the key (ErrorInfo reason API_KEY_INVALID);
//   - any other INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND,
//     OUT_OF_RANGE and UNIMPLEMENTED are model errors;
//   - DEADLINE_EXCEEDED is a timeout; INTERNAL, UNAVAILABLE, UNKNOWN,
//     ABORTED and DATA_LOSS are server errors.
func refine(e *llm.Error, code int, ae *apiError, header http.Header) {
	var retry time.Duration
	keyInvalid := strings.Contains(strings.ToLower(ae.Message), "api key not valid")
	for _, raw := range ae.Details {
		var d detail
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			retry = parseDuration(d.RetryDelay)
		case d.Reason == "API_KEY_INVALID":
			keyInvalid = true
		}
	}
	switch ae.Status {
	case "RESOURCE_EXHAUSTED":
		if code == http.StatusPaymentRequired {
			e.Class = llm.ClassQuota
			return
		}
		e.Class = llm.ClassRateLimit
		if retry <= 0 && header != nil {
			retry = llm.ParseRetryAfter(header.Get("Retry-After"), time.Now())
		}
		e.RetryAfter = retry
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		e.Class = llm.ClassAuth
	case "INVALID_ARGUMENT":
		e.Class = llm.ClassModel
		if keyInvalid {
			e.Class = llm.ClassAuth
		}
	case "FAILED_PRECONDITION", "NOT_FOUND", "OUT_OF_RANGE", "UNIMPLEMENTED", "ALREADY_EXISTS":
		e.Class = llm.ClassModel
	case "DEADLINE_EXCEEDED":
		e.Class = llm.ClassTimeout
	case "INTERNAL", "UNAVAILABLE", "UNKNOWN", "ABORTED", "DATA_LOSS":
		e.Class = llm.ClassServer
	case "CANCELLED":
		e.Class = llm.ClassNetwork
	}
}

// parseDuration reads a google.protobuf.Duration in its JSON form, a
// decimal number of seconds with the suffix "s" ("46s", "0.5s"); 0 for
// anything else or a value out of range.
func parseDuration(s string) time.Duration {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, "s") {
		return 0
	}
	secs, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	if err != nil || secs <= 0 || secs > 86400*365 {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}

package llmtest

import (
	"net/http"
	"strconv"
	"strings"
)

// The Gemini API, as its reference describes it: POST
// …/models/{model}:generateContent answers one GenerateContentResponse
// (candidates with content parts, finishReason, usageMetadata,
// modelVersion); …:streamGenerateContent?alt=sse answers the same object in
// SSE chunks, the last with the finishReason, and no end marker. Thoughts
// are text parts with "thought": true; function calls arrive whole, one
// part each; a reply with reasoning puts its thought signature on the
// first function call, or else on the thought. Errors are a google.rpc
// status: {"error": {"code", "message", "status", "details"}}.

// geminiModel returns the model named in a Gemini method path
// (…/models/{model}:method) and whether the method streams.
func geminiModel(path string) (model string, stream, ok bool) {
	i := strings.LastIndex(path, ":")
	if i < 0 {
		return "", false, false
	}
	switch path[i+1:] {
	case "generateContent":
	case "streamGenerateContent":
		stream = true
	default:
		return "", false, false
	}
	rest := path[:i]
	j := strings.Index(rest, "/models/")
	if j < 0 {
		return "", false, false
	}
	return rest[j+len("/models/"):], stream, true
}

func geminiUsage(u Usage) map[string]any {
	m := map[string]any{
		"promptTokenCount":     u.Input + u.CacheRead,
		"candidatesTokenCount": u.Output,
		"totalTokenCount":      u.Input + u.CacheRead + u.Output + u.Reasoning,
	}
	if u.CacheRead > 0 {
		m["cachedContentTokenCount"] = u.CacheRead
	}
	if u.Reasoning > 0 {
		m["thoughtsTokenCount"] = u.Reasoning
	}
	return m
}

func renderGemini(rep Reply, seq int) rendered {
	u := rep.usage()
	stop := rep.stop("STOP", "STOP")
	id := "gemini-llmtest-" + strconv.Itoa(seq)
	sig := ""
	if rep.Reasoning != "" {
		sig = rep.signature()
	}
	callPart := func(i int, c ToolCall) map[string]any {
		fc := map[string]any{"name": c.Name, "args": objectArgs(c.Arguments)}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		p := map[string]any{"functionCall": fc}
		if i == 0 && sig != "" {
			p["thoughtSignature"] = sig
		}
		return p
	}
	thoughtPart := func(text string, last bool) map[string]any {
		p := map[string]any{"text": text, "thought": true}
		if last && sig != "" && len(rep.ToolCalls) == 0 {
			p["thoughtSignature"] = sig
		}
		return p
	}
	doc := func(parts []any, finish string, withUsage bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		d := map[string]any{"candidates": []any{cand}, "modelVersion": rep.Model, "responseId": id}
		if withUsage {
			d["usageMetadata"] = geminiUsage(u)
		}
		return d
	}

	var parts []any
	if rep.Reasoning != "" {
		parts = append(parts, thoughtPart(rep.Reasoning, true))
	}
	if rep.Text != "" {
		parts = append(parts, map[string]any{"text": rep.Text})
	}
	for i, c := range rep.ToolCalls {
		parts = append(parts, callPart(i, c))
	}
	if parts == nil {
		parts = []any{}
	}
	full := doc(parts, stop, true)

	n := rep.chunkSize()
	var frames [][]byte
	chunk := func(d map[string]any) { frames = append(frames, geminiSSE(mustJSON(d))) }
	pieces := split(rep.Reasoning, n)
	for i, p := range pieces {
		chunk(doc([]any{thoughtPart(p, i == len(pieces)-1)}, "", false))
	}
	for _, p := range split(rep.Text, n) {
		chunk(doc([]any{map[string]any{"text": p}}, "", false))
	}
	for i, c := range rep.ToolCalls {
		chunk(doc([]any{callPart(i, c)}, "", false))
	}
	chunk(doc([]any{}, stop, true))
	return rendered{body: mustJSON(full), stream: frames}
}

// geminiSSE frames one chunk as the API does: a data line and a blank
// line, ended by CRLF.
func geminiSSE(b []byte) []byte {
	out := make([]byte, 0, len(b)+10)
	out = append(out, "data: "...)
	out = append(out, b...)
	return append(out, "\r\n\r\n"...)
}

// geminiStatus is the google.rpc status name of an HTTP status.
func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests, http.StatusPaymentRequired:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}

// geminiError is the API's error document: the status name is ErrorType
// when it is one (upper case), else the status code's; a Retry-After in
// seconds also becomes a RetryInfo detail, as the API sends it.
func geminiError(rep Reply, msg string) []byte {
	status := rep.ErrorType
	if status == "" || strings.ToUpper(status) != status {
		status = geminiStatus(rep.Status)
	}
	e := map[string]any{"code": rep.Status, "message": msg, "status": status}
	if ra := rep.Header["Retry-After"]; ra != "" && strings.Trim(ra, "0123456789.") == "" {
		e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": ra + "s"}}
	}
	return mustJSON(map[string]any{"error": e})
}

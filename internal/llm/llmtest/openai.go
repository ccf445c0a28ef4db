package llmtest

import (
	"fmt"
	"maps"
	"net/http"
)

// OpenAI chat completions, as the API reference describes them: a
// "chat.completion" object, or "chat.completion.chunk" SSE events ending
// with "data: [DONE]". Streamed tool calls carry their index, with id and
// name in the first delta and the argument text spread over later ones.

func openAIUsage(u Usage) map[string]any {
	m := map[string]any{
		"prompt_tokens":     u.Input + u.CacheRead,
		"completion_tokens": u.Output,
		"total_tokens":      u.Input + u.CacheRead + u.Output,
		"prompt_tokens_details": map[string]any{
			"cached_tokens": u.CacheRead,
		},
	}
	if u.Reasoning > 0 {
		m["completion_tokens_details"] = map[string]any{"reasoning_tokens": u.Reasoning}
	}
	return m
}

func renderOpenAI(rep Reply, seq int, includeUsage bool) rendered {
	id := fmt.Sprintf("chatcmpl-llmtest-%d", seq)
	const created = 1767225600
	msg := map[string]any{"role": "assistant", "content": nil}
	if rep.Text != "" {
		msg["content"] = rep.Text
	}
	if rep.Reasoning != "" {
		msg["reasoning_content"] = rep.Reasoning
	}
	if len(rep.ToolCalls) > 0 {
		calls := make([]map[string]any, 0, len(rep.ToolCalls))
		for i, c := range rep.ToolCalls {
			calls = append(calls, map[string]any{
				"id": c.id("call_%d", i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
			})
		}
		msg["tool_calls"] = calls
	}
	full := map[string]any{
		"id": id, "object": "chat.completion", "created": created, "model": rep.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": rep.stop("tool_calls", "stop"), "logprobs": nil}},
		"usage":   openAIUsage(rep.usage()),
	}
	maps.Copy(full, rep.Extra)

	chunk := func(delta map[string]any, finish any) []byte {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": rep.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		}
		return sseData(mustJSON(c))
	}
	n := rep.chunkSize()
	var frames [][]byte
	frames = append(frames, chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, p := range split(rep.Reasoning, n) {
		frames = append(frames, chunk(map[string]any{"reasoning_content": p}, nil))
	}
	for _, p := range split(rep.Text, n) {
		frames = append(frames, chunk(map[string]any{"content": p}, nil))
	}
	for i, c := range rep.ToolCalls {
		frames = append(frames, chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.id("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		for _, p := range split(c.Arguments, n) {
			frames = append(frames, chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": p},
			}}}, nil))
		}
	}
	frames = append(frames, chunk(map[string]any{}, rep.stop("tool_calls", "stop")))
	if includeUsage || len(rep.Extra) > 0 {
		last := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": rep.Model,
			"choices": []any{},
		}
		if includeUsage {
			last["usage"] = openAIUsage(rep.usage())
		}
		maps.Copy(last, rep.Extra)
		frames = append(frames, sseData(mustJSON(last)))
	}
	frames = append(frames, []byte("data: [DONE]\n\n"))
	return rendered{body: mustJSON(full), stream: frames}
}

func sseData(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	out = append(out, "data: "...)
	out = append(out, b...)
	return append(out, "\n\n"...)
}

func sseEvent(name string, b []byte) []byte {
	out := make([]byte, 0, len(b)+len(name)+16)
	out = append(out, "event: "...)
	out = append(out, name...)
	out = append(out, "\ndata: "...)
	out = append(out, b...)
	return append(out, "\n\n"...)
}

// errorBody is the provider's error document for a failed status.
func errorBody(w Wire, rep Reply) []byte {
	typ, msg := rep.ErrorType, rep.ErrorMessage
	if msg == "" {
		msg = fmt.Sprintf("llmtest: simulated HTTP %d", rep.Status)
	}
	if typ == "" {
		typ = defaultErrorType(rep.Status)
	}
	switch w {
	case Anthropic:
		return mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	case Ollama:
		return mustJSON(map[string]any{"error": msg})
	case Gemini:
		return geminiError(rep, msg)
	}
	return mustJSON(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": typ}})
}

// defaultErrorType names the error type a provider gives a status.
func defaultErrorType(status int) string {
	switch {
	case status == 400:
		return "invalid_request_error"
	case status == 401:
		return "authentication_error"
	case status == 403:
		return "permission_error"
	case status == 404:
		return "not_found_error"
	case status == 429:
		return "rate_limit_error"
	case status == 529:
		return "overloaded_error"
	}
	return "api_error"
}

// streamError is the provider's in-stream error event.
func streamError(w Wire, rep Reply) []byte {
	body := errorBody(w, rep)
	switch w {
	case Anthropic:
		return sseEvent("error", body)
	case Ollama:
		return append(body, '\n')
	case OpenAIResponses:
		typ := rep.ErrorType
		if typ == "" {
			typ = "server_error"
		}
		return sseEvent("error", mustJSON(map[string]any{"type": "error", "code": typ, "message": rep.ErrorMessage, "param": nil}))
	case Gemini:
		if rep.Status == 0 {
			rep.Status = http.StatusInternalServerError
		}
		return geminiSSE(geminiError(rep, rep.ErrorMessage))
	}
	return sseData(body)
}

func malformedFrame(w Wire) []byte {
	switch w {
	case Anthropic:
		return sseEvent("content_block_delta", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"`))
	case Ollama:
		return []byte("{\"message\":{\"content\":\"x\"\n")
	case Gemini:
		return geminiSSE([]byte(`{"candidates":[{"content":{"parts":[{"text":"x"`))
	}
	return sseData([]byte(`{"id":"x","choices":[{"delta":{"content":"x"`))
}

package headend

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// anthropicRequest is the part of a messages request the headend reads.
// The system member is accepted and ignored: the agent has its own system
// prompt.
type anthropicRequest struct {
	Model     *string         `json:"model"`
	Messages  []message       `json:"messages"`
	Stream    bool            `json:"stream"`
	MaxTokens json.RawMessage `json:"max_tokens"`
}

// anthropicError writes the Anthropic error shape.
func anthropicError(w http.ResponseWriter, status int, typ, msg string) {
	setRetryAfter(w, status)
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	return "api_error"
}

func (s *server) anthropicHandler(lim *limiter) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r, true) {
			anthropicError(w, http.StatusUnauthorized, "authentication_error", "missing or invalid API key")
			return
		}
		data := []map[string]any{}
		for _, a := range s.opts.Agents {
			data = append(data, map[string]any{"type": "model", "id": a.Name, "display_name": a.Name, "created_at": "1970-01-01T00:00:00Z"})
		}
		var first, last any
		if len(data) > 0 {
			first, last = data[0]["id"], data[len(data)-1]["id"]
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": false, "first_id": first, "last_id": last})
	})
	mux.HandleFunc("GET /v1/models/{id}", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r, true) {
			anthropicError(w, http.StatusUnauthorized, "authentication_error", "missing or invalid API key")
			return
		}
		a, ok := s.agents[r.PathValue("id")]
		if !ok {
			anthropicError(w, http.StatusNotFound, "not_found_error", "model: "+r.PathValue("id")+" is not an agent of this server")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"type": "model", "id": a.Name, "display_name": a.Name, "created_at": "1970-01-01T00:00:00Z"})
	})
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) { s.anthropicMessages(w, r, lim) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		anthropicError(w, http.StatusNotFound, "not_found_error", "unknown route "+r.Method+" "+r.URL.Path)
	})
	return mux
}

func (s *server) anthropicMessages(w http.ResponseWriter, r *http.Request, lim *limiter) {
	if !s.authorized(r, true) {
		anthropicError(w, http.StatusUnauthorized, "authentication_error", "missing or invalid API key")
		return
	}
	var in anthropicRequest
	if err := s.readJSON(w, r, &in); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, errBodyTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		anthropicError(w, status, anthropicErrorType(status), err.Error())
		return
	}
	if in.Model == nil || *in.Model == "" {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "model: field required (the name of an agent, GET /v1/models)")
		return
	}
	a, ok := s.agents[*in.Model]
	if !ok {
		anthropicError(w, http.StatusNotFound, "not_found_error", "model: "+*in.Model+" is not an agent of this server (GET /v1/models)")
		return
	}
	history, prompt, err := conversation(in.Messages)
	if err != nil {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	req := Request{ID: newRequestID(), Headend: KindAnthropic, Prompt: prompt, History: history}
	release, err := lim.acquire(r.Context())
	if err != nil {
		status, msg := admissionStatus(err)
		anthropicError(w, status, anthropicErrorType(status), msg)
		return
	}
	defer release()
	w.Header().Set("Request-Id", req.ID)
	w.Header().Set("X-Request-Id", req.ID)
	id := "msg_" + req.ID
	if !in.Stream {
		res := s.run(r.Context(), a, req)
		if !res.Success {
			anthropicError(w, http.StatusInternalServerError, "api_error", "agent session failed: "+res.Error)
			return
		}
		u := sumUsage(res)
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": a.Name,
			"content":     []map[string]any{{"type": "text", "text": reportText(res.FinalReport)}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": u.Input, "output_tokens": u.Output},
		})
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sse := s.newSSE(w, cancel)
	sse.json("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": a.Name, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 0, "output_tokens": 0}}})
	// Progress is a thinking block, opened on the first line; the report
	// is the text block after it.
	index := 0
	thinking := false
	progress := &lineWriter{emit: func(line string) {
		if !thinking {
			thinking = true
			sse.json("content_block_start", map[string]any{"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		}
		sse.json("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "thinking_delta", "thinking": line}})
	}}
	req.Progress = progress
	stop := keepAlive(s.opts.KeepAlive, func() { sse.event("ping", []byte(`{"type": "ping"}`)) })
	start := time.Now()
	res := s.run(ctx, a, req)
	stop()
	progress.flushRest()
	if thinking {
		sse.json("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if !res.Success {
		sse.json("error", map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": "agent session failed: " + res.Error}})
		return
	}
	u := sumUsage(res)
	sse.json("content_block_start", map[string]any{"type": "content_block_start", "index": index,
		"content_block": map[string]any{"type": "text", "text": ""}})
	sse.json("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
		"delta": map[string]any{"type": "text_delta", "text": reportText(res.FinalReport)}})
	sse.json("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	sse.json("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": u.Input, "output_tokens": u.Output}})
	sse.json("message_stop", map[string]any{"type": "message_stop"})
	s.opts.Logger.Debug("anthropic stream done", "request", req.ID, "ms", time.Since(start).Milliseconds())
}

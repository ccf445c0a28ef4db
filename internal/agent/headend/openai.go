package headend

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// openAIRequest is the part of a chat completions request the headend
// reads; other members are accepted and ignored.
type openAIRequest struct {
	Model         *string   `json:"model"`
	Messages      []message `json:"messages"`
	Stream        bool      `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// openAIError writes the OpenAI error shape.
func openAIError(w http.ResponseWriter, status int, typ, code, msg string) {
	setRetryAfter(w, status)
	var c any
	if code != "" {
		c = code
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

func (s *server) openAIHandler(lim *limiter) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r, false) {
			openAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "missing or invalid bearer token")
			return
		}
		data := []map[string]any{}
		for _, a := range s.opts.Agents {
			data = append(data, map[string]any{"id": a.Name, "object": "model", "created": 0, "owned_by": "ai-agent"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
	})
	mux.HandleFunc("GET /v1/models/{id}", func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r, false) {
			openAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "missing or invalid bearer token")
			return
		}
		a, ok := s.agents[r.PathValue("id")]
		if !ok {
			openAIError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", "the model "+r.PathValue("id")+" does not exist")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": a.Name, "object": "model", "created": 0, "owned_by": "ai-agent"})
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.openAIChat(w, r, lim) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "unknown route "+r.Method+" "+r.URL.Path)
	})
	return mux
}

func (s *server) openAIChat(w http.ResponseWriter, r *http.Request, lim *limiter) {
	if !s.authorized(r, false) {
		openAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "missing or invalid bearer token")
		return
	}
	var in openAIRequest
	if err := s.readJSON(w, r, &in); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, errBodyTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		openAIError(w, status, "invalid_request_error", "", err.Error())
		return
	}
	if in.Model == nil || *in.Model == "" {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "model is required: use the name of an agent (GET /v1/models)")
		return
	}
	a, ok := s.agents[*in.Model]
	if !ok {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", "the model "+*in.Model+" does not exist: use the name of an agent (GET /v1/models)")
		return
	}
	history, prompt, err := conversation(in.Messages)
	if err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	req := Request{ID: newRequestID(), Headend: KindOpenAI, Prompt: prompt, History: history}
	if rf := in.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_schema":
			if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
				openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "response_format json_schema needs json_schema.schema")
				return
			}
			req.Format, req.Schema = "json", rf.JSONSchema.Schema
		case "json_object":
			req.Format, req.Schema = "json", json.RawMessage(`{"type":"object"}`)
		case "", "text":
		default:
			openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "unknown response_format type "+rf.Type)
			return
		}
	}
	release, err := lim.acquire(r.Context())
	if err != nil {
		status, msg := admissionStatus(err)
		typ, code := "rate_limit_exceeded", "rate_limit_exceeded"
		if status != http.StatusTooManyRequests {
			typ, code = "server_error", "overloaded"
		}
		openAIError(w, status, typ, code, msg)
		return
	}
	defer release()
	w.Header().Set("X-Request-Id", req.ID)
	id := "chatcmpl-" + req.ID
	created := time.Now().Unix()
	if !in.Stream {
		res := s.run(r.Context(), a, req)
		if !res.Success {
			openAIError(w, http.StatusInternalServerError, "server_error", "agent_failed", "agent session failed: "+res.Error)
			return
		}
		u := sumUsage(res)
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": a.Name,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": reportText(res.FinalReport)},
				"finish_reason": "stop", "logprobs": nil}},
			"usage": map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Total},
		})
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sse := s.newSSE(w, cancel)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": a.Name,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}
	}
	sse.json("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	progress := &lineWriter{emit: func(line string) {
		sse.json("", chunk(map[string]any{"reasoning_content": line}, nil))
	}}
	req.Progress = progress
	stop := keepAlive(s.opts.KeepAlive, func() { sse.comment("keep-alive") })
	res := s.run(ctx, a, req)
	stop()
	progress.flushRest()
	if !res.Success {
		sse.json("", map[string]any{"error": map[string]any{"message": "agent session failed: " + res.Error, "type": "server_error", "code": "agent_failed", "param": nil}})
		sse.event("", []byte("[DONE]"))
		return
	}
	sse.json("", chunk(map[string]any{"content": reportText(res.FinalReport)}, nil))
	sse.json("", chunk(map[string]any{}, "stop"))
	if in.StreamOptions != nil && in.StreamOptions.IncludeUsage {
		u := sumUsage(res)
		sse.json("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": a.Name,
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Total}})
	}
	sse.event("", []byte("[DONE]"))
}

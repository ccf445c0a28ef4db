package headend

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// apiFormats are the format values the REST and MCP headends accept.
var apiFormats = []string{"markdown", "markdown+mermaid", "slack-block-kit", "tty", "pipe", "text", "json", "sub-agent"}

func validFormat(f string) bool {
	for _, x := range apiFormats {
		if f == x {
			return true
		}
	}
	return false
}

// apiAnswer is the REST headend's answer.
type apiAnswer struct {
	Success     bool    `json:"success"`
	Output      string  `json:"output"`
	FinalReport any     `json:"finalReport"`
	Error       *string `json:"error"`
	RequestID   string  `json:"requestId,omitempty"`
}

func apiError(w http.ResponseWriter, status int, msg string) {
	setRetryAfter(w, status)
	writeJSON(w, status, apiAnswer{Error: &msg, FinalReport: nil})
}

func (s *server) apiHandler(lim *limiter) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /v1/{agent}", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		s.apiRun(w, r, lim, r.PathValue("agent"), q.Get("q"), q.Get("format"), q.Get("schema"))
	})
	mux.HandleFunc("POST /v1/{agent}", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Q      string          `json:"q"`
			Prompt string          `json:"prompt"`
			Format string          `json:"format"`
			Schema json.RawMessage `json:"schema"`
		}
		if !s.authorized(r, false) {
			apiError(w, http.StatusUnauthorized, "missing or invalid bearer token")
			return
		}
		if err := s.readJSON(w, r, &in); err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, errBodyTooLarge) {
				status = http.StatusRequestEntityTooLarge
			}
			apiError(w, status, err.Error())
			return
		}
		if in.Q == "" {
			in.Q = in.Prompt
		}
		s.apiRun(w, r, lim, r.PathValue("agent"), in.Q, in.Format, string(in.Schema))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "unknown route "+r.Method+" "+r.URL.Path)
	})
	return mux
}

func (s *server) apiRun(w http.ResponseWriter, r *http.Request, lim *limiter, name, prompt, format, schema string) {
	if !s.authorized(r, false) {
		apiError(w, http.StatusUnauthorized, "missing or invalid bearer token")
		return
	}
	a, ok := s.agents[name]
	if !ok {
		apiError(w, http.StatusNotFound, "unknown agent "+name)
		return
	}
	if strings.TrimSpace(prompt) == "" {
		apiError(w, http.StatusBadRequest, "q (the prompt) is required")
		return
	}
	req := Request{ID: newRequestID(), Headend: KindAPI, Prompt: prompt}
	if format != "" {
		if !validFormat(format) {
			apiError(w, http.StatusBadRequest, "unknown format "+format+" (one of "+strings.Join(apiFormats, ", ")+")")
			return
		}
		req.Format = format
	}
	if schema != "" && schema != "null" {
		if !json.Valid([]byte(schema)) {
			apiError(w, http.StatusBadRequest, "schema is not JSON")
			return
		}
		req.Schema = json.RawMessage(schema)
	}
	if req.Format == "json" && len(req.Schema) == 0 && !a.JSON {
		req.Schema = json.RawMessage(`{"type":"object"}`)
	}
	release, err := lim.acquire(r.Context())
	if err != nil {
		status, msg := admissionStatus(err)
		apiError(w, status, msg)
		return
	}
	defer release()
	w.Header().Set("X-Request-Id", req.ID)
	res := s.run(r.Context(), a, req)
	ans := apiAnswer{Success: res.Success, Output: reportText(res.FinalReport), RequestID: req.ID}
	if res.FinalReport != nil {
		ans.FinalReport = res.FinalReport
	}
	status := http.StatusOK
	if !res.Success {
		msg := res.Error
		ans.Error = &msg
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, ans)
}

package headend

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/httpguard"
)

// EmbedConfig is one profile of the config file's embed section
// (embed.<profile>; docs/ai-agent.md, Embed headend), with the original
// tool's keys.
type EmbedConfig struct {
	// AllowedAgents are the agents a client may pick; empty allows the
	// first served agent only.
	AllowedAgents []string `json:"allowedAgents"`
	// CorsOrigins are the other origins whose pages may call the headend:
	// exact scheme://host[:port] values. Every other cross-origin request
	// is refused.
	CorsOrigins []string `json:"corsOrigins"`
	// Concurrency bounds the sessions running at once; 0 is
	// DefaultConcurrency (--embed-concurrency wins).
	Concurrency int `json:"concurrency"`
	// RateLimit bounds the requests of one origin (or client address) per
	// minute.
	RateLimit *EmbedRateLimit `json:"rateLimit"`
	// Auth holds the shared secret a client must send, when enabled.
	Auth *EmbedAuth `json:"auth"`
}

// EmbedRateLimit is a fixed one-minute window of RequestsPerMinute +
// BurstSize requests per origin (or client address).
type EmbedRateLimit struct {
	Enabled           bool `json:"enabled"`
	RequestsPerMinute int  `json:"requestsPerMinute"`
	BurstSize         int  `json:"burstSize"`
}

// EmbedAuth is the embed headend's access policy: signed tokens, and the
// original's tiers of callers.
type EmbedAuth struct {
	SignedTokens *EmbedSignedTokens `json:"signedTokens"`
	Tiers        *EmbedTiers        `json:"tiers"`
}

// EmbedSignedTokens requires every chat to carry a token signed with
// Secret (see SignToken) and younger than TTLSeconds (0 is
// DefaultTokenTTL).
type EmbedSignedTokens struct {
	Enabled    bool   `json:"enabled"`
	Secret     string `json:"secret"`
	TTLSeconds int    `json:"ttlSeconds"`
}

// token is the secret clients' tokens are signed with, "" when none is
// configured.
func (c *EmbedConfig) token() string {
	if c == nil || c.Auth == nil || c.Auth.SignedTokens == nil || !c.Auth.SignedTokens.Enabled {
		return ""
	}
	return c.Auth.SignedTokens.Secret
}

//go:embed embedstatic/ai-agent-public.js
var embedScript []byte

//go:embed embedstatic/index.html
var embedDemo []byte

// embedScriptTag is the widget script's ETag.
var embedScriptTag = func() string {
	sum := sha256.Sum256(embedScript)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}()

// embedFormats are the formats a client may ask for; others keep the
// agent's own.
var embedFormats = map[string]bool{"markdown": true, "markdown+mermaid": true, "tty": true, "pipe": true}

// clientIDPattern is a client id the headend keeps; others are replaced.
var clientIDPattern = regexp.MustCompile(`^[0-9a-fA-F-]{36}$`)

// embedError writes the embed headend's error shape.
func embedError(w http.ResponseWriter, status int, code, msg string) {
	setRetryAfter(w, status)
	writeJSON(w, status, map[string]string{"error": code, "message": msg})
}

// embedGuard is the embed headend's guard: configured origins may call it
// across origins, and the widget script and the health check may be
// loaded by any page. The secret, when configured, is checked by
// /v1/chat alone: the demo page and the script are public.
func (s *server) embedGuard(cfg *EmbedConfig, auth *embedAuth) httpguard.Guard {
	g := guard()
	g.MaxBodyBytes = s.opts.MaxBodyBytes
	g.Origins = append(slices.Clip(cfg.CorsOrigins), auth.tierOrigins()...)
	g.Rules = []httpguard.Rule{
		{Path: "/ai-agent-public.js", AnySite: true},
		{Path: "/health", AnySite: true},
	}
	g.Navigation = true
	g.Deny = func(w http.ResponseWriter, r *http.Request, status int, reason string) {
		code := map[int]string{http.StatusForbidden: "cors_rejected", http.StatusUnauthorized: "invalid_token",
			http.StatusUnsupportedMediaType: "unsupported_media_type", http.StatusRequestEntityTooLarge: "payload_too_large"}[status]
		embedError(w, status, code, reason)
	}
	return g
}

// embedHandler serves one embed profile, behind the guard it returns for
// each request.
func (s *server) embedHandler(sp Spec, lim *limiter) (http.Handler, func(*http.Request) httpguard.Guard, error) {
	cfg := sp.Embed
	if cfg == nil {
		cfg = &EmbedConfig{}
	}
	var allowed []*Agent
	for _, name := range cfg.AllowedAgents {
		a, ok := s.agents[name]
		if !ok {
			return nil, nil, fmt.Errorf("%w: embed.%s.allowedAgents: agent %q is not served (give it with --agent)", ErrSpec, sp.Profile, name)
		}
		allowed = append(allowed, a)
	}
	if len(allowed) == 0 {
		allowed = []*Agent{s.agents[s.opts.Agents[0].Name]}
	}
	if err := checkOrigins(fmt.Sprintf("embed.%s.corsOrigins", sp.Profile), cfg.CorsOrigins); err != nil {
		return nil, nil, err
	}
	auth, err := newEmbedAuth(sp.Profile, cfg, s.opts.Now)
	if err != nil {
		return nil, nil, err
	}
	if t := auth.tiers; t != nil && t.AgentDashboards != nil && t.AgentDashboards.VerifyGUIDInCloud {
		s.opts.Logger.Warn("embed: verifyGuidInCloud is set but no registry is configured; treated as false", "profile", sp.Profile)
	}
	guardFor := auth.guardFor(s.embedGuard(cfg, auth))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /ai-agent-public.js", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/javascript; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("ETag", embedScriptTag)
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Header.Get("If-None-Match") == embedScriptTag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(embedScript)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(embedDemo)
	})
	mux.HandleFunc("POST /v1/chat", func(w http.ResponseWriter, r *http.Request) {
		if _, d := auth.authorize(r); d != nil {
			embedError(w, d.status, d.code, d.reason)
			return
		}
		s.embedChat(w, r, allowed, lim)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		embedError(w, http.StatusNotFound, "not_found", "unknown route "+r.Method+" "+r.URL.Path)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g := guardFor(r); r.Header.Get("Origin") != "" && g.AllowedOrigin(r.Header.Get("Origin")) {
			o := r.Header.Get("Origin")
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", o)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, "+GUIDHeader)
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Max-Age", "86400")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		mux.ServeHTTP(w, r)
	}), guardFor, nil
}

// clientAddr is the client's address (X-Forwarded-For is not trusted:
// any client can send it).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// embedRequest is the body of POST /v1/chat.
type embedRequest struct {
	Message  string `json:"message"`
	ClientID string `json:"clientId"`
	History  []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"history"`
	Format  string `json:"format"`
	AgentID string `json:"agentId"`
}

// embedChat answers POST /v1/chat with a stream of events: client, meta,
// status (one per progress line), report, metrics, done, or error.
func (s *server) embedChat(w http.ResponseWriter, r *http.Request, allowed []*Agent, lim *limiter) {
	var in embedRequest
	if err := s.readJSON(w, r, &in); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, errBodyTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		embedError(w, status, "invalid_request", err.Error())
		return
	}
	in.Message = strings.TrimSpace(in.Message)
	if in.Message == "" {
		embedError(w, http.StatusBadRequest, "invalid_message", "message is required")
		return
	}
	a := allowed[0]
	for _, c := range allowed {
		if c.Name == in.AgentID {
			a = c
		}
	}
	isNew := !clientIDPattern.MatchString(in.ClientID)
	if isNew {
		in.ClientID = newRequestID()
	}
	req := Request{ID: newRequestID(), Headend: KindEmbed, Prompt: in.Message}
	if embedFormats[in.Format] {
		req.Format = in.Format
	}
	for _, m := range in.History {
		if (m.Role == "user" || m.Role == "assistant") && strings.TrimSpace(m.Content) != "" {
			req.History = append(req.History, contract.Message{Role: m.Role, Content: m.Content})
		}
	}
	release, err := lim.acquire(r.Context())
	if err != nil {
		status, msg := admissionStatus(err)
		code := "concurrency_limit"
		if errors.Is(err, ErrShuttingDown) {
			code = "server_stopping"
		}
		embedError(w, status, code, msg)
		return
	}
	defer release()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sse := s.newSSE(w, cancel)
	sse.json("client", map[string]any{"clientId": in.ClientID, "isNew": isNew})
	sse.json("meta", map[string]any{"sessionId": req.ID, "turn": 1, "agentId": a.Name})
	start := time.Now()
	var statusMu sync.Mutex
	entries := []TranscriptEntry{{Role: "user", Content: in.Message}}
	progress := &lineWriter{emit: func(line string) {
		now := strings.TrimSpace(line)
		statusMu.Lock()
		entries = append(entries, TranscriptEntry{Role: "status", Content: now})
		statusMu.Unlock()
		sse.json("status", map[string]any{"eventType": "agent_update", "agent": a.Name, "agentPath": a.Name,
			"now": now, "timestamp": s.opts.Now().UnixMilli()})
	}}
	req.Progress = progress
	stop := keepAlive(s.opts.KeepAlive, func() { sse.comment("keep-alive") })
	res := s.run(ctx, a, req)
	stop()
	progress.flushRest()
	report := reportText(res.FinalReport)
	u := sumUsage(res)
	tools, llmCalls := 0, 0
	for _, e := range res.Accounting {
		switch e.Type {
		case contract.AccountingTool:
			tools++
		case contract.AccountingLLM:
			llmCalls++
		}
	}
	if !res.Success {
		sse.json("error", map[string]any{"code": "session_failed", "message": res.Error, "recoverable": false})
	} else if report != "" {
		sse.json("report", map[string]any{"chunk": report, "index": 1})
	}
	statusMu.Lock()
	entries = append(entries, TranscriptEntry{Role: "assistant", Content: report})
	statusMu.Unlock()
	if err := s.transcripts.append(a.SessionsDir, in.ClientID, entries, s.opts.Now()); err != nil {
		s.opts.Logger.Warn("embed transcript not written", "error", err)
	}
	elapsed := time.Since(start).Milliseconds()
	sse.json("metrics", map[string]any{"elapsed": elapsed, "reasoningChars": 0, "outputChars": utf16Len(report),
		"documentsChars": 0, "tools": tools, "llmCalls": llmCalls, "final": true})
	sse.json("done", map[string]any{"success": res.Success, "reportLength": utf16Len(report),
		"metrics": map[string]any{"durationMs": elapsed, "tokensIn": u.Input, "tokensOut": u.Output, "toolsRun": tools}})
}

// utf16Len counts as JavaScript's String.length does.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

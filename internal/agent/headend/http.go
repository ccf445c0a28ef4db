package headend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/httpguard"
)

// guardedServer wraps h with panic recovery, the headend's guard g (the
// shared guard, or the embed headend's) and the slow-client timeouts.
func (s *server) guardedServer(h http.Handler, g httpguard.Guard) *http.Server {
	return s.guardedServerFor(h, func(*http.Request) httpguard.Guard { return g })
}

// guardedServerFor is guardedServer with a guard chosen per request (the
// embed headend lets a Netdata dashboard of any origin in with its GUID).
func (s *server) guardedServerFor(inner http.Handler, guardFor func(*http.Request) httpguard.Guard) *http.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g := guardFor(r); g.Allow(w, r) {
			inner.ServeHTTP(w, r)
		}
	})
	return &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if rec := recover(); rec != nil {
					if rec == http.ErrAbortHandler {
						panic(rec)
					}
					s.opts.Logger.Error("headend handler panic", "panic", rec, "path", r.URL.Path)
					http.Error(w, "internal error", http.StatusInternalServerError)
				}
			}()
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// guard is the shared guard (package httpguard) of every HTTP headend: on
// loopback a foreign Host is refused, so a page rebound to this machine
// cannot run sessions; so is any request a page of another origin makes a
// browser send (the REST headend's GET runs a session too); and a body
// must be JSON. The token and the body limit are checked by each route,
// through authorized and readJSON, so that each API answers them in its
// own error format.
func guard() httpguard.Guard {
	return httpguard.Guard{JSON: true}
}

// authorized reports whether the request carries the configured token:
// a bearer token, or x-api-key when apiKey is set (the Anthropic API), in
// constant time. No configured token authorizes everything.
func (s *server) authorized(r *http.Request, apiKey bool) bool {
	t := httpguard.Token{Value: s.opts.Token}
	if apiKey {
		t.Header = "X-Api-Key"
	}
	return t.Authorized(r)
}

// errBodyTooLarge marks a body over the size limit.
var errBodyTooLarge = errors.New("request body too large")

// readJSON decodes a JSON body of at most MaxBodyBytes into v.
func (s *server) readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	b, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, s.opts.MaxBodyBytes)
		}
		return fmt.Errorf("read body: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("empty body: expected a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid JSON body: %v", err)
	}
	if dec.More() {
		return errors.New("invalid JSON body: trailing data after the object")
	}
	return nil
}

// admission is the outcome of acquiring a slot, as an HTTP status.
func admissionStatus(err error) (int, string) {
	switch {
	case errors.Is(err, ErrBusy):
		return http.StatusTooManyRequests, "too many requests: every session slot is busy and the wait queue is full; retry later"
	case errors.Is(err, ErrQueueTimeout):
		return http.StatusServiceUnavailable, "over capacity: no session slot became free in time; retry later"
	case errors.Is(err, ErrShuttingDown):
		return http.StatusServiceUnavailable, "the server is shutting down"
	}
	return 499, "client closed request"
}

// setRetryAfter sets Retry-After on capacity answers.
func setRetryAfter(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(1))
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"encode response"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(writeTimeout))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeTimeout bounds the write of a whole JSON answer.
const writeTimeout = 30 * time.Second

// sseWriter writes server-sent events; it is safe for concurrent use. A
// write that fails or times out (a client that stopped reading) marks the
// stream broken, calls onBroken once and drops later writes, so a stalled
// client never blocks its session.
type sseWriter struct {
	mu       sync.Mutex
	w        http.ResponseWriter
	rc       *http.ResponseController
	timeout  time.Duration
	broken   bool
	onBroken func()
}

func (s *server) newSSE(w http.ResponseWriter, onBroken func()) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: s.opts.WriteTimeout, onBroken: onBroken}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	_ = sw.rc.SetWriteDeadline(time.Now().Add(sw.timeout))
	w.WriteHeader(http.StatusOK)
	sw.flushLocked()
	return sw
}

// writeLocked writes and flushes b under the write timeout.
func (s *sseWriter) writeLocked(b []byte) {
	if s.broken {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(b); err != nil {
		s.breakLocked()
		return
	}
	s.flushLocked()
}

func (s *sseWriter) flushLocked() {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.breakLocked()
	}
}

func (s *sseWriter) breakLocked() {
	if !s.broken {
		s.broken = true
		if s.onBroken != nil {
			s.onBroken()
		}
	}
}

// event writes one event; name "" writes a data-only event.
func (s *sseWriter) event(name string, data []byte) {
	var buf bytes.Buffer
	if name != "" {
		buf.WriteString("event: " + name + "\n")
	}
	buf.WriteString("data: ")
	buf.Write(data)
	buf.WriteString("\n\n")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeLocked(buf.Bytes())
}

func (s *sseWriter) json(name string, v any) {
	b, _ := json.Marshal(v)
	s.event(name, b)
}

func (s *sseWriter) comment(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeLocked([]byte(": " + text + "\n\n"))
}

// keepAlive calls beat every interval until the returned stop is called.
func keepAlive(interval time.Duration, beat func()) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				beat()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// lineWriter turns progress output into whole lines for emit; it is safe
// for concurrent use.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	emit func(line string)
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := string(l.buf[:i+1])
		l.buf = l.buf[i+1:]
		if strings.TrimSpace(line) != "" {
			l.emit(line)
		}
	}
	return len(p), nil
}

// flushRest emits a last partial line.
func (l *lineWriter) flushRest() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(bytes.TrimSpace(l.buf)) > 0 {
		l.emit(string(l.buf) + "\n")
	}
	l.buf = nil
}

// usage sums the LLM token counts of a result's accounting.
type usage struct {
	Input, Output, Total int
}

func sumUsage(res contract.AIAgentResult) usage {
	var u usage
	for _, e := range res.Accounting {
		if e.Type != contract.AccountingLLM || e.Tokens == nil {
			continue
		}
		u.Input += e.Tokens.InputTokens
		u.Output += e.Tokens.OutputTokens
		t := e.Tokens.TotalTokens
		if t == 0 {
			t = e.Tokens.InputTokens + e.Tokens.OutputTokens
		}
		u.Total += t
	}
	return u
}

// reportText is the text of a final report: the content, or the JSON
// content for json and slack formats.
func reportText(rep *contract.FinalReport) string {
	if rep == nil {
		return ""
	}
	switch {
	case rep.Content != nil && *rep.Content != "" && rep.Format != "json":
		return *rep.Content
	case len(rep.ContentJSON) > 0:
		return string(rep.ContentJSON)
	case len(rep.Messages) > 0:
		b, _ := json.Marshal(rep.Messages)
		return string(b)
	case rep.Content != nil:
		return *rep.Content
	}
	return ""
}

// message is a chat message of the completions APIs: content is a string
// or an array of parts of which the text parts count.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text extracts the message's text.
func (m message) text() (string, error) {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || string(c) == "null" {
		return "", nil
	}
	if c[0] == '"' {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(c, &parts); err != nil {
		return "", errors.New("content must be a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "input_text" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// conversation splits chat messages into the history and the prompt: the
// last message must be the user's; earlier user and assistant messages
// are the history; system, developer and tool messages are dropped (the
// agent has its own system prompt and tools).
func conversation(msgs []message) (history []contract.Message, prompt string, err error) {
	if len(msgs) == 0 {
		return nil, "", errors.New("messages must be a non-empty array")
	}
	last := msgs[len(msgs)-1]
	if last.Role != "user" {
		return nil, "", fmt.Errorf("the last message must have role user, not %q", last.Role)
	}
	if prompt, err = last.text(); err != nil {
		return nil, "", fmt.Errorf("messages[%d]: %w", len(msgs)-1, err)
	}
	if strings.TrimSpace(prompt) == "" {
		return nil, "", errors.New("the last user message has no text")
	}
	for i, m := range msgs[:len(msgs)-1] {
		switch m.Role {
		case "user", "assistant":
			t, err := m.text()
			if err != nil {
				return nil, "", fmt.Errorf("messages[%d]: %w", i, err)
			}
			if t == "" {
				continue
			}
			history = append(history, contract.Message{Role: m.Role, Content: t})
		case "system", "developer", "tool", "function":
		default:
			return nil, "", fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	return history, prompt, nil
}

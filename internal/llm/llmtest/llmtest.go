// Package llmtest is a local HTTP server that speaks the wire formats of
// the LLM providers salve supports, for tests over a real socket:
//
//   - OpenAI chat completions: POST …/chat/completions, JSON or SSE
//     (including the usage chunk of stream_options.include_usage);
//   - Anthropic messages: POST …/messages, JSON or SSE events;
//   - Ollama: POST …/api/chat, JSON or NDJSON;
//   - OpenAI Responses: POST …/responses, JSON or SSE events;
//   - Gemini: POST …/models/{model}:generateContent, JSON, or
//     …:streamGenerateContent?alt=sse, SSE chunks.
//
// A test queues [Reply] values with [Server.Push] (or answers dynamically
// with [Server.Handle]); each request takes the next reply, rendered in the
// wire format of the path it hit and streamed when the request asked for
// streaming. Every request is recorded for assertions ([Server.Requests]).
// A request whose messages break the providers' documented rule on tool
// calls and their results ([CheckShape]) is refused with HTTP 400 and the
// provider's error body, as the real APIs refuse it, and takes no reply.
// Replies can inject failures: any HTTP status with the provider's error
// body, Retry-After, hangs, malformed JSON, truncated bodies and streams,
// dropped connections and mid-stream error events. Text and tool-call
// arguments are split across stream chunks of [Reply.ChunkSize] bytes, so
// clients must reassemble them.
//
// The server listens on 127.0.0.1 and must be closed with [Server.Close].
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Wire is a provider wire format.
type Wire string

// The wire formats the server speaks, chosen by the request path.
const (
	OpenAI    Wire = "openai"
	Anthropic Wire = "anthropic"
	Ollama    Wire = "ollama"
	// OpenAIResponses is the OpenAI Responses API (…/responses).
	OpenAIResponses Wire = "openai-responses"
	// Gemini is the Gemini API (…/models/{model}:generateContent and
	// :streamGenerateContent), which names the model and the streaming in
	// the path.
	Gemini Wire = "gemini"
)

// Fault is a failure injected into a reply.
type Fault string

// The injectable faults.
const (
	// FaultNone answers normally.
	FaultNone Fault = ""
	// FaultHang never answers; the request ends when the client gives up
	// or the server closes.
	FaultHang Fault = "hang"
	// FaultHangMidStream streams the first half of the reply, then hangs.
	FaultHangMidStream Fault = "hang-mid-stream"
	// FaultMalformedJSON answers 200 with a body (or one stream event)
	// that is not valid JSON.
	FaultMalformedJSON Fault = "malformed-json"
	// FaultTruncateBody answers 200 with a Content-Length longer than the
	// body it sends, then closes the connection.
	FaultTruncateBody Fault = "truncate-body"
	// FaultTruncateStream streams the first half of the reply and ends the
	// response cleanly, without the stream's terminator ([DONE],
	// message_stop, done:true).
	FaultTruncateStream Fault = "truncate-stream"
	// FaultResetStream streams the first half of the reply, then closes
	// the connection in the middle of the chunked body.
	FaultResetStream Fault = "reset-stream"
	// FaultDropConnection closes the connection without any response.
	FaultDropConnection Fault = "drop-connection"
	// FaultStreamError streams the first half of the reply, then the
	// provider's in-stream error event with ErrorType and ErrorMessage.
	FaultStreamError Fault = "stream-error"
)

// ToolCall is a tool call of a reply.
type ToolCall struct {
	// ID defaults to "call_N" (OpenAI), "toolu_N" (Anthropic); Ollama
	// and Gemini send none.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments is the argument text. OpenAI streams it verbatim, so it
	// may be malformed; Anthropic, Ollama and Gemini carry an object, so
	// it must be a JSON object there (anything else is sent as {}).
	Arguments string `json:"arguments"`
}

// Usage is the token usage a reply reports. Input excludes cached tokens;
// each wire format reports them its own way (OpenAI: prompt_tokens
// includes them and prompt_tokens_details.cached_tokens names them;
// Anthropic: input_tokens excludes them; Gemini: promptTokenCount
// includes them and cachedContentTokenCount names them; Ollama has no
// cache counts).
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead,omitempty"`
	CacheWrite int `json:"cacheWrite,omitempty"`
	Reasoning  int `json:"reasoning,omitempty"`
}

// Reply is one scripted answer. The zero Reply is a successful empty
// answer.
type Reply struct {
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningSignature is the Anthropic thinking signature; Anthropic
	// replies with Reasoning default it to "sig-llmtest".
	ReasoningSignature string     `json:"reasoningSignature,omitempty"`
	ToolCalls          []ToolCall `json:"toolCalls,omitempty"`
	// StopReason is the wire's own value; empty means the usual one
	// ("stop"/"tool_calls", "end_turn"/"tool_use", "stop").
	StopReason string `json:"stopReason,omitempty"`
	// Usage defaults to 10 input and 5 output tokens.
	Usage *Usage `json:"usage,omitempty"`
	// Model defaults to the requested model.
	Model string `json:"model,omitempty"`
	// Extra fields merged into the top level of a non-streamed OpenAI
	// body and of the last streamed chunk (OpenRouter's "provider",
	// usage "cost"…).
	Extra map[string]any `json:"extra,omitempty"`

	// Status, when not 2xx, answers with that status and the provider's
	// error body (ErrorType, ErrorMessage) unless Body is set.
	Status       int    `json:"status,omitempty"`
	ErrorType    string `json:"errorType,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	// Body, when set, is sent verbatim instead of any rendered body.
	Body string `json:"body,omitempty"`
	// Header holds extra response headers, such as Retry-After.
	Header map[string]string `json:"header,omitempty"`

	Fault Fault `json:"fault,omitempty"`
	// ChunkSize splits streamed text, reasoning and tool arguments into
	// pieces of at most this many bytes; 0 means 8.
	ChunkSize int `json:"chunkSize,omitempty"`
	// Delay waits before answering (the client's timeout applies). In
	// JSON it is a number of nanoseconds.
	Delay time.Duration `json:"delay,omitempty"`
}

// Request is a recorded request.
type Request struct {
	Wire   Wire
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Stream reports whether the request asked for a streamed answer.
	Stream bool
	// Model is the request's "model" field.
	Model string
}

// JSON decodes the request body into a generic map.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Decode decodes the request body into v.
func (r Request) Decode(v any) error { return json.Unmarshal(r.Body, v) }

// Server is the scripted provider server.
type Server struct {
	// URL is the server's root, such as http://127.0.0.1:41234.
	URL string

	srv     *httptest.Server
	closing chan struct{}

	mu       sync.Mutex
	queue    []Reply
	handler  func(Request) Reply
	requests []Request
	rejected []string
	seq      int
}

// NewServer starts a server on a free loopback port.
func NewServer() *Server {
	s := &Server{closing: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Listen starts a server on addr ("127.0.0.1:0" picks a free port).
func Listen(addr string) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("llmtest: listen: %w", err)
	}
	s := &Server{closing: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server, first releasing hanging handlers.
func (s *Server) Close() {
	select {
	case <-s.closing:
	default:
		close(s.closing)
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// OpenAIBaseURL is the baseUrl for OpenAI-style providers ("…/v1").
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// AnthropicBaseURL is the baseUrl for the Anthropic provider ("…/v1").
func (s *Server) AnthropicBaseURL() string { return s.URL + "/v1" }

// OllamaBaseURL is the baseUrl for the Ollama provider ("…/api").
func (s *Server) OllamaBaseURL() string { return s.URL + "/api" }

// GeminiBaseURL is the baseUrl for the google provider ("…/v1beta").
func (s *Server) GeminiBaseURL() string { return s.URL + "/v1beta" }

// Push queues replies; each request takes the first one left.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets the function that answers requests when the queue is empty.
// Without one, a request finding the queue empty gets HTTP 500 with an
// error body saying so.
func (s *Server) Handle(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = f
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// reject records a request refused by [CheckShape]; it takes no reply.
func (s *Server) reject(req Request, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	s.rejected = append(s.rejected, err.Error())
}

// Rejected returns, in order, why each request that broke the providers'
// rule on tool calls and results ([CheckShape]) was refused with HTTP 400.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejected...)
}

// Pending returns the number of queued replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

func wireOf(path string) (Wire, bool) {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return OpenAI, true
	case strings.HasSuffix(path, "/api/chat"):
		return Ollama, true
	case strings.HasSuffix(path, "/messages"):
		return Anthropic, true
	case strings.HasSuffix(path, "/responses"):
		return OpenAIResponses, true
	}
	if _, _, ok := geminiModel(path); ok {
		return Gemini, true
	}
	return "", false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	wire, ok := wireOf(r.URL.Path)
	if !ok || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"llmtest: unknown endpoint"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req := Request{Wire: wire, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	var head struct {
		Model  string `json:"model"`
		Stream *bool  `json:"stream"`
	}
	_ = json.Unmarshal(body, &head)
	req.Model = head.Model
	req.Stream = head.Stream != nil && *head.Stream
	if wire == Ollama && head.Stream == nil {
		req.Stream = true // Ollama streams unless told not to
	}
	if wire == Gemini {
		req.Model, req.Stream, _ = geminiModel(r.URL.Path)
	}
	if err := CheckShape(wire, body); err != nil {
		s.reject(req, err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(errorBody(wire, Reply{Status: http.StatusBadRequest, ErrorType: "invalid_request_error", ErrorMessage: err.Error()}))
		return
	}
	reply, seq, ok := s.next(req)
	if !ok {
		reply = Reply{Status: 500, ErrorType: "server_error", ErrorMessage: "llmtest: no scripted reply left"}
	}
	if reply.Model == "" {
		reply.Model = req.Model
	}
	s.answer(w, r, req, reply, seq)
}

func (s *Server) next(req Request) (Reply, int, bool) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.seq++
	seq := s.seq
	if len(s.queue) > 0 {
		rep := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return rep, seq, true
	}
	h := s.handler
	s.mu.Unlock()
	if h == nil {
		return Reply{}, seq, false
	}
	return h(req), seq, true
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, rep Reply, seq int) {
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	switch rep.Fault {
	case FaultHang:
		s.hang(w, r)
		return
	case FaultDropConnection:
		dropConnection(w)
		return
	}
	if rep.Status != 0 && rep.Status/100 != 2 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		if rep.Body != "" {
			io.WriteString(w, rep.Body)
			return
		}
		w.Write(errorBody(req.Wire, rep))
		return
	}
	if rep.Body != "" {
		writeRaw(w, req.Stream, rep)
		return
	}
	frames := render(req, rep, seq)
	if rep.Fault == FaultTruncateBody && req.Stream {
		truncateBody(w, bytes.Join(frames.stream, nil))
		return
	}
	if !req.Stream {
		s.answerJSON(w, r, rep, frames)
		return
	}
	s.answerStream(w, r, req.Wire, rep, frames)
}

func writeRaw(w http.ResponseWriter, stream bool, rep Reply) {
	ct := "application/json"
	if stream {
		ct = "text/event-stream"
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", ct)
	}
	status := rep.Status
	if status == 0 {
		status = 200
	}
	w.WriteHeader(status)
	io.WriteString(w, rep.Body)
}

// hang waits for the client to give up, or for Close, which drops the
// connection so the client never sees a finished answer.
func (s *Server) hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
		dropConnection(w)
	}
}

// answerJSON writes the single body of a non-streamed reply.
func (s *Server) answerJSON(w http.ResponseWriter, r *http.Request, rep Reply, frames rendered) {
	body := frames.body
	switch rep.Fault {
	case FaultMalformedJSON:
		body = body[:len(body)/2]
	case FaultTruncateBody:
		truncateBody(w, body)
		return
	case FaultHangMidStream, FaultTruncateStream, FaultResetStream, FaultStreamError:
		// Stream faults on a non-streamed request cut the body short.
		truncateBody(w, body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// answerStream writes the frames of a streamed reply, flushing each, and
// applies the stream faults half way through.
func (s *Server) answerStream(w http.ResponseWriter, r *http.Request, wire Wire, rep Reply, frames rendered) {
	ct := "text/event-stream"
	if wire == Ollama {
		ct = "application/x-ndjson"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	half := len(frames.stream) / 2
	for i, f := range frames.stream {
		if i == half && s.streamFault(w, r, wire, rep) {
			return
		}
		w.Write(f)
		if fl != nil {
			fl.Flush()
		}
	}
}

// streamFault applies rep's fault half way through a stream and reports
// whether the stream must stop there.
func (s *Server) streamFault(w http.ResponseWriter, r *http.Request, wire Wire, rep Reply) bool {
	flush := func() {
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	switch rep.Fault {
	case FaultTruncateStream:
		return true
	case FaultHangMidStream:
		flush()
		s.hang(w, r)
		return true
	case FaultResetStream:
		flush()
		dropConnection(w)
		return true
	case FaultStreamError:
		w.Write(streamError(wire, rep))
		return true
	case FaultMalformedJSON:
		w.Write(malformedFrame(wire))
	}
	return false
}

// dropConnection closes the client connection without finishing the
// response.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// truncateBody announces the full length, sends half and closes.
func truncateBody(w http.ResponseWriter, body []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	buf.Write(body[:len(body)/2])
	buf.Flush()
}

// rendered is a reply in one wire format: the whole body for a JSON
// answer and the frames (SSE events or NDJSON lines) for a stream.
type rendered struct {
	body   []byte
	stream [][]byte
}

func render(req Request, rep Reply, seq int) rendered {
	switch req.Wire {
	case Anthropic:
		return renderAnthropic(rep, seq)
	case Ollama:
		return renderOllama(rep)
	case OpenAIResponses:
		return renderResponses(rep, seq)
	case Gemini:
		return renderGemini(rep, seq)
	}
	var opts struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	_ = json.Unmarshal(req.Body, &opts)
	return renderOpenAI(rep, seq, opts.StreamOptions.IncludeUsage)
}

func (rep Reply) usage() Usage {
	if rep.Usage == nil {
		return Usage{Input: 10, Output: 5}
	}
	return *rep.Usage
}

// stop is the stop reason a reply is rendered with: its own StopReason,
// else toolUse when it calls tools, else end.
func (rep Reply) stop(toolUse, end string) string {
	switch {
	case rep.StopReason != "":
		return rep.StopReason
	case len(rep.ToolCalls) > 0:
		return toolUse
	}
	return end
}

// id is the call's own ID, else one made from format and its place i
// (counted from 1 in the ID).
func (c ToolCall) id(format string, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf(format, i+1)
}

func (rep Reply) chunkSize() int {
	if rep.ChunkSize <= 0 {
		return 8
	}
	return rep.ChunkSize
}

// split cuts s into pieces of at most n bytes, at rune boundaries.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		if i == 0 { // one rune longer than n: send it whole
			i = 1
			for i < len(s) && s[i]&0xC0 == 0x80 {
				i++
			}
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: encode: %v", err))
	}
	return b
}

// objectArgs returns the arguments as a JSON object for the wire formats
// that carry objects.
func objectArgs(args string) json.RawMessage {
	t := bytes.TrimSpace([]byte(args))
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return json.RawMessage(t)
	}
	return json.RawMessage(`{}`)
}

// Render returns the bytes the server would send for rep on wire: the JSON
// body, or the whole stream (with the OpenAI usage chunk). Use it to feed
// decoders directly in benchmarks and fuzz seeds.
func Render(wire Wire, stream bool, rep Reply) []byte {
	if rep.Model == "" {
		rep.Model = "m"
	}
	body := []byte(`{"stream_options":{"include_usage":true}}`)
	r := render(Request{Wire: wire, Body: body, Stream: stream}, rep, 1)
	if !stream {
		return r.body
	}
	return bytes.Join(r.stream, nil)
}

// SampleReply is a typical tool-calling answer for benchmarks: 2 KB of
// text, two tool calls and cached-token usage, streamed in 16-byte pieces.
func SampleReply() Reply {
	return Reply{
		Text: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 45),
		ToolCalls: []ToolCall{
			{ID: "call_1", Name: "fs__read_file", Arguments: `{"path":"src/main.go","offset":0,"limit":400}`},
			{ID: "call_2", Name: "fs__search", Arguments: `{"pattern":"func main","path":"."}`},
		},
		Usage:     &Usage{Input: 1200, Output: 300, CacheRead: 4000},
		ChunkSize: 16,
	}
}

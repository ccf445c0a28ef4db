package headend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcpws"
)

// mcpHeadend is an MCP server whose tools are the agents.
type mcpHeadend struct {
	s   *server
	lim *limiter
	srv *sdk.Server
}

// newMCP builds the MCP server: one tool per agent, taking prompt, format
// and (for format json) schema; the instructions list the agents.
func (s *server) newMCP(lim *limiter) *mcpHeadend {
	var instr strings.Builder
	instr.WriteString("Each tool runs one ai-agent session of the agent it is named after and returns its final report. Agents:\n")
	for _, a := range s.opts.Agents {
		desc := a.Description
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(&instr, "- %s: %s\n", a.Name, desc)
	}
	m := &mcpHeadend{s: s, lim: lim}
	m.srv = sdk.NewServer(&sdk.Implementation{Name: "ai-agent", Version: s.opts.Version},
		&sdk.ServerOptions{Instructions: instr.String(), Capabilities: &sdk.ServerCapabilities{}})
	for i := range s.opts.Agents {
		a := &s.opts.Agents[i]
		m.srv.AddTool(&sdk.Tool{Name: a.Name, Description: toolDescription(a), InputSchema: inputSchema(a)}, m.handler(a))
	}
	return m
}

func toolDescription(a *Agent) string {
	d := a.Description
	if d == "" {
		d = "Runs the " + a.Name + " agent."
	}
	if a.JSON {
		d += " Answers JSON: call it with format \"json\"."
	}
	return d
}

func inputSchema(a *Agent) map[string]any {
	formatDesc := "output format of the final report"
	if a.JSON {
		formatDesc += "; this agent answers JSON, use \"json\""
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"prompt": map[string]any{"type": "string", "description": "the user prompt"},
			"format": map[string]any{"type": "string", "enum": apiFormats, "description": formatDesc},
			"schema": map[string]any{"type": "object", "description": "JSON Schema of the answer; required when format is json (the agent's own schema is used when it has one)"},
		},
		"required":             []string{"prompt", "format"},
		"additionalProperties": false,
	}
}

func toolError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

func (m *mcpHeadend) handler(a *Agent) sdk.ToolHandler {
	return func(ctx context.Context, call *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct {
			Prompt string          `json:"prompt"`
			Format string          `json:"format"`
			Schema json.RawMessage `json:"schema"`
		}
		if call.Params != nil && len(call.Params.Arguments) > 0 {
			dec := json.NewDecoder(bytes.NewReader(call.Params.Arguments))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return toolError("invalid arguments: " + err.Error()), nil
			}
		}
		if strings.TrimSpace(in.Prompt) == "" {
			return toolError("prompt is required"), nil
		}
		if !validFormat(in.Format) {
			return toolError(fmt.Sprintf("format is required, one of %s", strings.Join(apiFormats, ", "))), nil
		}
		if a.JSON && in.Format != "json" {
			return toolError("agent " + a.Name + " answers JSON: call it with format \"json\""), nil
		}
		req := Request{ID: newRequestID(), Headend: KindMCP, Prompt: in.Prompt, Format: in.Format}
		if in.Format == "json" {
			sch := bytes.TrimSpace(in.Schema)
			switch {
			case len(sch) > 0 && string(sch) != "null":
				req.Schema = in.Schema
			case a.JSON:
			default:
				return toolError("schema is required when format is json"), nil
			}
		}
		release, err := m.lim.acquire(ctx)
		if err != nil {
			_, msg := admissionStatus(err)
			return toolError(msg), nil
		}
		defer release()
		// A client that asked for progress gets the agent's progress
		// lines as progress notifications.
		if call.Params != nil && call.Session != nil {
			if tok := call.Params.GetProgressToken(); tok != nil {
				var n float64
				req.Progress = &lineWriter{emit: func(line string) {
					n++
					_ = call.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
						ProgressToken: tok, Progress: n, Message: strings.TrimSpace(line)})
				}}
			}
		}
		res := m.s.run(ctx, a, req)
		if !res.Success {
			return toolError("agent session failed: " + res.Error), nil
		}
		out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: reportText(res.FinalReport)}}}
		if rep := res.FinalReport; rep != nil && len(rep.ContentJSON) > 0 {
			var v any
			if json.Unmarshal(rep.ContentJSON, &v) == nil {
				if obj, ok := v.(map[string]any); ok {
					out.StructuredContent = obj
				}
			}
		}
		return out, nil
	}
}

// serveStdio serves one client on in and out until in ends or ctx is
// cancelled.
func (m *mcpHeadend) serveStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := m.srv.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// mcpHTTPHandler serves streamable HTTP (http), the older SSE transport
// (sse) or WebSocket (ws), behind the bearer token and body limit.
func (s *server) mcpHTTPHandler(m *mcpHeadend, transport string) http.Handler {
	get := func(*http.Request) *sdk.Server { return m.srv }
	var h http.Handler
	switch transport {
	case "sse":
		h = sdk.NewSSEHandler(get, nil)
	case "ws":
		h = m.wsHandler()
	default:
		// Idle sessions of clients that went away without closing are
		// dropped after an hour.
		h = sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{
			MaxRequestBodyBytes: s.opts.MaxBodyBytes, SessionTimeout: time.Hour})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" && r.Method == http.MethodGet {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
			return
		}
		if !s.authorized(r, false) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		select {
		case <-s.closing:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
			return
		default:
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		h.ServeHTTP(w, r)
	})
}

// wsHandler serves MCP over WebSocket, as the original's `--mcp ws:PORT`
// does: each socket is one MCP session (one JSON-RPC message per text
// frame, no larger than the body limit), on any path. The socket outlives
// the HTTP server's shutdown, so it is closed once the running sessions
// have answered (or been cancelled).
func (m *mcpHeadend) wsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := mcpws.Accept(w, r)
		if err != nil {
			return // Accept has answered the request
		}
		ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
		defer cancel()
		ss, err := m.srv.Connect(ctx, &mcpws.Server{Conn: ws, ReadLimit: m.s.opts.MaxBodyBytes}, nil)
		if err != nil {
			_ = ws.CloseNow()
			m.s.opts.Logger.Warn("mcp websocket: connect", "error", err)
			return
		}
		done := make(chan struct{})
		go func() { _ = ss.Wait(); close(done) }()
		select {
		case <-done:
		case <-m.s.drained:
			_ = ss.Close()
			<-done
		}
	})
}

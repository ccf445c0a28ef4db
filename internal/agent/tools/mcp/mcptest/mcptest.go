// Package mcptest is a small MCP server, written with the official Go SDK,
// that the tests of internal/agent/tools/mcp (and the engine's conformance tests) run as a
// real peer over stdio, streamable HTTP, SSE or WebSocket. Besides an honest echo tool it
// injects the failures the runtime must survive:
//
//	echo     {text}          returns text
//	slow     {ms}            sleeps ms milliseconds (honouring cancellation),
//	                         counting calls in flight for `stats`
//	stats    {reset?}        {"inflight":N,"maxInflight":M,"calls":C}
//	huge     {bytes}         returns that many bytes of text
//	fail     {message}       an isError result with that text
//	mixed    {}              a text item, an image item and another text item
//	invalid  {}              a result the client cannot decode (stdio only)
//	crash    {}              the server process exits mid-call (stdio only)
//	env      {}              the server's environment, one KEY=VALUE a line
//	spawn    {}              starts a `sleep 300` grandchild and returns its
//	                         pid, to prove the process group is killed
//	freeze   {}              the server stops answering anything, this call
//	                         included, but stays alive: a hung server (stdio
//	                         only)
//
// With Options.BadSchema it also lists `badschema`, whose inputSchema cannot
// be compiled. Run it with [ServeStdio], [HTTPHandler] or the command in
// cmd/mcptest.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcpws"
)

// Options choose the tools of a server.
type Options struct {
	// Name is the server's implementation name; empty means "mcptest".
	Name string
	// Process enables the tools that act on the server's own process
	// (crash, spawn, invalid); only safe when the server is a child.
	Process bool
	// BadSchema adds the `badschema` tool with an uncompilable schema.
	BadSchema bool

	// frozen, set by ServeStdio, is closed by the `freeze` tool.
	frozen chan struct{}
}

// invalidMarker is the text the `invalid` tool returns; [ServeStdio]
// rewrites its content item into one of an unknown type on the wire.
const invalidMarker = "__MCPTEST_INVALID_RESULT__"

// state counts the `slow` calls in flight.
type state struct {
	mu                     sync.Mutex
	inflight, maxIn, calls int
}

func (s *state) enter() {
	s.mu.Lock()
	s.inflight++
	s.calls++
	s.maxIn = max(s.maxIn, s.inflight)
	s.mu.Unlock()
}

func (s *state) leave() {
	s.mu.Lock()
	s.inflight--
	s.mu.Unlock()
}

// NewServer returns the server with the tools of opts.
func NewServer(opts Options) *sdk.Server {
	name := opts.Name
	if name == "" {
		name = "mcptest"
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: name, Version: "1.0.0"}, nil)
	st := &state{}
	add := func(name, desc, schema string, h func(ctx context.Context, args map[string]any) (*sdk.CallToolResult, error)) {
		srv.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				args, err := decodeArgs(req.Params.Arguments)
				if err != nil {
					return nil, err
				}
				return h(ctx, args)
			})
	}
	add("echo", "Returns its text.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
			return text(fmt.Sprint(a["text"])), nil
		})
	add("slow", "Sleeps for ms milliseconds.", `{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`,
		func(ctx context.Context, a map[string]any) (*sdk.CallToolResult, error) {
			st.enter()
			defer st.leave()
			ms, _ := a["ms"].(float64)
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return text(fmt.Sprintf("slept %dms", int(ms))), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	add("stats", "Reports the slow calls in flight.", `{"type":"object","properties":{"reset":{"type":"boolean"}}}`,
		func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
			st.mu.Lock()
			defer st.mu.Unlock()
			out := fmt.Sprintf(`{"inflight":%d,"maxInflight":%d,"calls":%d}`, st.inflight, st.maxIn, st.calls)
			if a["reset"] == true {
				st.maxIn, st.calls = st.inflight, 0
			}
			return text(out), nil
		})
	add("huge", "Returns bytes bytes of text.", `{"type":"object","properties":{"bytes":{"type":"integer","minimum":0}},"required":["bytes"]}`,
		func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
			n, _ := a["bytes"].(float64)
			return text(strings.Repeat("x", int(n))), nil
		})
	add("fail", "Fails with message.", `{"type":"object","properties":{"message":{"type":"string"}}}`,
		func(_ context.Context, a map[string]any) (*sdk.CallToolResult, error) {
			r := text(fmt.Sprint(a["message"]))
			r.IsError = true
			return r, nil
		})
	add("mixed", "Returns text, an image and text.", `{"type":"object"}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "first"},
				&sdk.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"},
				&sdk.TextContent{Text: "last"},
			}}, nil
		})
	add("env", "Returns the server's environment.", `{"type":"object"}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			env := os.Environ()
			sort.Strings(env)
			return text(strings.Join(env, "\n")), nil
		})
	if opts.Process {
		addProcessTools(add)
	}
	if opts.Process && opts.frozen != nil {
		var once sync.Once
		add("freeze", "Stops answering anything, for good.", `{"type":"object"}`,
			func(ctx context.Context, _ map[string]any) (*sdk.CallToolResult, error) {
				once.Do(func() { close(opts.frozen) })
				<-ctx.Done()
				return nil, ctx.Err()
			})
	}
	if opts.BadSchema {
		add("badschema", "Has an input schema that cannot compile.", `{"type":"object","properties":{"x":{"type":12}}}`,
			func(context.Context, map[string]any) (*sdk.CallToolResult, error) { return text("unreachable"), nil })
	}
	return srv
}

// decodeArgs reads a call's arguments; none is an empty map.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 {
		return args, nil
	}
	err := json.Unmarshal(raw, &args)
	return args, err
}

type addFunc func(name, desc, schema string, h func(ctx context.Context, args map[string]any) (*sdk.CallToolResult, error))

func addProcessTools(add addFunc) {
	add("invalid", "Returns a result the client cannot decode.", `{"type":"object"}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			return text(invalidMarker), nil
		})
	add("crash", "Exits the server mid-call.", `{"type":"object"}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil
		})
	add("spawn", "Starts a sleeping grandchild and returns its pid.", `{"type":"object"}`,
		func(context.Context, map[string]any) (*sdk.CallToolResult, error) {
			cmd := exec.Command("sleep", "300")
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			go func() { _ = cmd.Wait() }()
			return text(fmt.Sprint(cmd.Process.Pid)), nil
		})
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// ServeStdio serves opts's server on stdin and stdout until the client
// closes stdin or ctx ends. The `invalid` tool's result is corrupted on the
// way out.
func ServeStdio(ctx context.Context, opts Options, stdin io.ReadCloser, stdout io.WriteCloser) error {
	opts.frozen = make(chan struct{})
	t := &sdk.IOTransport{Reader: stdin, Writer: &corrupter{w: stdout, frozen: opts.frozen}}
	return NewServer(opts).Run(ctx, t)
}

// corrupter turns the `invalid` tool's text item into an item of an unknown
// content type, which the client must reject. Once frozen is closed it
// writes nothing more: every write blocks until the process ends.
type corrupter struct {
	mu     sync.Mutex
	w      io.WriteCloser
	frozen chan struct{}
}

var (
	validItem   = []byte(`{"type":"text","text":"` + invalidMarker + `"}`)
	invalidItem = []byte(`{"type":"no-such-content","text":"?"}`)
)

// Write rewrites the marker item and writes p through.
func (c *corrupter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.frozen:
		// A hung server, killed from outside; a pending timer (unlike a
		// bare block) keeps the runtime from calling it a deadlock.
		time.Sleep(24 * time.Hour)
		return 0, io.ErrClosedPipe
	default:
	}
	if _, err := c.w.Write(bytes.ReplaceAll(p, validItem, invalidItem)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close closes the underlying writer.
func (c *corrupter) Close() error { return c.w.Close() }

// HTTPHandler serves opts's server over streamable HTTP (mount it at /mcp);
// the process tools are never offered in-process.
func HTTPHandler(opts Options) http.Handler {
	opts.Process = false
	srv := NewServer(opts)
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
}

// WebSocketHandler serves opts's server over WebSocket, one MCP session per
// socket (package mcpws), on any path. Header, when set, is told each
// handshake's headers; closing stop (when not nil) drops every socket, as
// a server that went away does (an http.Server's Close leaves upgraded
// connections open).
func WebSocketHandler(opts Options, header func(http.Header), stop <-chan struct{}) http.Handler {
	opts.Process = false
	srv := NewServer(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if header != nil {
			header(r.Header.Clone())
		}
		ws, err := mcpws.Accept(w, r)
		if err != nil {
			return
		}
		ss, err := srv.Connect(r.Context(), &mcpws.Server{Conn: ws}, nil)
		if err != nil {
			return
		}
		done := make(chan struct{})
		go func() { _ = ss.Wait(); close(done) }()
		select {
		case <-done:
		case <-stop:
			_ = ws.CloseNow()
			<-done
		}
	})
}

// SSEHandler serves opts's server over the SSE transport (mount it at /sse).
func SSEHandler(opts Options) http.Handler {
	opts.Process = false
	srv := NewServer(opts)
	return sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil)
}

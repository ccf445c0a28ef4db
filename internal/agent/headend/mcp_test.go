package headend

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcpws"
)

// mcpCheck lists the tools and calls them through a connected client.
func mcpCheck(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if instr := cs.InitializeResult().Instructions; !strings.Contains(instr, "chat: A chat agent") || !strings.Contains(instr, "extract: Extracts JSON") {
		t.Fatalf("instructions %q", instr)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != 2 || lt.Tools[0].Name != "chat" && lt.Tools[1].Name != "chat" {
		t.Fatalf("tools %+v", lt.Tools)
	}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		isError bool
		text    string
		structd bool
	}{
		{"markdown", "chat", map[string]any{"prompt": "hi", "format": "markdown"}, false, "echo: hi", false},
		{"json with schema", "chat", map[string]any{"prompt": "j", "format": "json", "schema": map[string]any{"type": "object"}}, false, `{"echo":"j"}`, true},
		{"json agent", "extract", map[string]any{"prompt": "k", "format": "json"}, false, `{"echo":"k"}`, true},
		{"missing format", "chat", map[string]any{"prompt": "hi"}, true, "format is required", false},
		{"json without schema", "chat", map[string]any{"prompt": "hi", "format": "json"}, true, "schema is required", false},
		{"json agent as text", "extract", map[string]any{"prompt": "hi", "format": "markdown"}, true, "answers JSON", false},
		{"missing prompt", "chat", map[string]any{"format": "markdown"}, true, "prompt is required", false},
		{"unknown argument", "chat", map[string]any{"prompt": "x", "format": "markdown", "extra": 1}, true, "invalid arguments", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError || len(res.Content) != 1 {
				t.Fatalf("isError %v content %+v", res.IsError, res.Content)
			}
			text := res.Content[0].(*sdk.TextContent).Text
			if !strings.Contains(text, tt.text) {
				t.Fatalf("text %q, want %q", text, tt.text)
			}
			if (res.StructuredContent != nil) != tt.structd {
				t.Fatalf("structured content %v", res.StructuredContent)
			}
		})
	}
}

func TestMCPStdio(t *testing.T) {
	f := &fakeRun{}
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	h := start(t, Options{Agents: agents(f), Stdin: sr, Stdout: sw}, Spec{Kind: KindMCP, Transport: "stdio"})
	progress := make(chan string, 10)
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			progress <- fmt.Sprint(r.Params.ProgressToken, " ", r.Params.Message)
		}})
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mcpCheck(t, cs)
	// A call with a progress token gets the progress lines.
	params := &sdk.CallToolParams{Name: "chat", Arguments: map[string]any{"prompt": "p", "format": "markdown"}}
	params.SetProgressToken("tok-1")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-progress:
		if got != "tok-1 progress: working on p" {
			t.Fatalf("progress %q", got)
		}
	case <-time.After(failAfter):
		t.Fatal("no progress notification")
	}
	// The end of the client's input shuts the server down.
	cs.Close()
	cw.Close()
	select {
	case <-h.done:
	case <-time.After(failAfter):
		t.Fatal("Serve did not return when stdin closed")
	}
}

func TestMCPHTTP(t *testing.T) {
	for _, tr := range []string{"http", "sse"} {
		t.Run(tr, func(t *testing.T) {
			f := &fakeRun{}
			h := start(t, Options{Agents: agents(f), Token: "tok"}, Spec{Kind: KindMCP, Transport: tr})
			url := "http://" + h.addrs[KindMCP+":"+tr]
			// Without the token the server refuses.
			resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("no token: %d", resp.StatusCode)
			}
			hc := &http.Client{Transport: bearer{"tok"}}
			var transport sdk.Transport = &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
			if tr == "sse" {
				transport = &sdk.SSEClientTransport{Endpoint: url, HTTPClient: hc}
			}
			c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), transport, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			mcpCheck(t, cs)
		})
	}
}

// TestMCPWebSocket: MCP over WebSocket, one session per socket, behind
// the token on the handshake; a page of another origin cannot open one.
func TestMCPWebSocket(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f), Token: "tok"}, Spec{Kind: KindMCP, Transport: "ws"})
	url := "ws://" + h.addrs[KindMCP+":ws"] + "/mcp"
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	refusals := []struct {
		name   string
		header http.Header
	}{
		{"no token", nil},
		{"wrong token", http.Header{"Authorization": {"Bearer nope"}}},
		{"foreign origin", http.Header{"Authorization": {"Bearer tok"}, "Origin": {"http://evil.example"}}},
	}
	for _, tt := range refusals {
		if cs, err := c.Connect(context.Background(), &mcpws.Client{URL: url, Header: tt.header}, nil); err == nil {
			cs.Close()
			t.Fatalf("%s: the handshake was accepted", tt.name)
		}
	}
	cs, err := c.Connect(context.Background(), &mcpws.Client{URL: url, Header: http.Header{"Authorization": {"Bearer tok"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcpCheck(t, cs)
}

// TestMCPWebSocketShutdownLetsCallFinish: at SIGTERM a call running over
// a socket finishes and answers, a new one is refused, and the socket is
// closed before Serve returns.
func TestMCPWebSocketShutdownLetsCallFinish(t *testing.T) {
	f := &fakeRun{block: make(chan struct{}), started: make(chan string, 1)}
	h := start(t, Options{Agents: agents(f), Grace: 10 * time.Second}, Spec{Kind: KindMCP, Transport: "ws"})
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcpws.Client{URL: "ws://" + h.addrs[KindMCP+":ws"]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	callSurvivesShutdown(t, h, f, cs)
	waited := make(chan error, 1)
	go func() { waited <- cs.Wait() }()
	select {
	case <-waited:
	case <-time.After(failAfter):
		t.Fatal("the socket stayed open after shutdown")
	}
}

// callSurvivesShutdown starts a call on cs that f holds, sends SIGTERM,
// checks that a new call is refused and the running one answers once f
// lets it go, and waits for Serve to return.
func callSurvivesShutdown(t *testing.T, h *harness, f *fakeRun, cs *sdk.ClientSession) {
	t.Helper()
	type out struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chat", Arguments: map[string]any{"prompt": "long", "format": "markdown"}})
		done <- out{res, err}
	}()
	<-f.started
	h.cancel() // SIGTERM
	waitStopping(t, h)
	late, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chat", Arguments: map[string]any{"prompt": "late", "format": "markdown"}})
	if err != nil || !late.IsError || !strings.Contains(late.Content[0].(*sdk.TextContent).Text, "shutting down") {
		t.Fatalf("late call: %+v %v", late, err)
	}
	close(f.block)
	select {
	case o := <-done:
		if o.err != nil || o.res.IsError || o.res.Content[0].(*sdk.TextContent).Text != "echo: long" {
			t.Fatalf("running call: %+v %v", o.res, o.err)
		}
	case <-time.After(failAfter):
		t.Fatal("the running call never answered")
	}
	select {
	case <-h.done:
	case <-time.After(failAfter):
		t.Fatal("Serve did not return")
	}
}

// bearer adds the Authorization header.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPStdioShutdownLetsCallFinish: SIGTERM during a running stdio call
// lets it finish and answer; a call made during shutdown is refused.
func TestMCPStdioShutdownLetsCallFinish(t *testing.T) {
	f := &fakeRun{block: make(chan struct{}), started: make(chan string, 1)}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	h := start(t, Options{Agents: agents(f), Stdin: sr, Stdout: sw, Grace: 10 * time.Second}, Spec{Kind: KindMCP, Transport: "stdio"})
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	callSurvivesShutdown(t, h, f, cs)
	cw.Close()
}

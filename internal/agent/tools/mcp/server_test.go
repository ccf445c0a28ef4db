package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
)

func startT(t *testing.T, cfg ServerConfig) *Server {
	t.Helper()
	s, err := Start(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatalf("Start(%s): %v", cfg.Name, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func call(t *testing.T, p tools.Provider, name, args string) tools.Result {
	t.Helper()
	res, err := p.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", name, args, err)
	}
	return res
}

func hasTool(p tools.Provider, name string) bool {
	return slices.ContainsFunc(p.Tools(), func(t tools.Tool) bool { return t.Name == name })
}

// TestEverythingServer runs the reference "everything" server over each
// transport it offers: stdio, streamable HTTP and SSE.
func TestEverythingServer(t *testing.T) {
	entry := refServer(t, "server-everything")
	tests := []struct {
		transport string
		cfg       func(t *testing.T) ServerConfig
	}{
		{transport: "stdio", cfg: func(t *testing.T) ServerConfig {
			return ServerConfig{Name: "everything", Command: "node", Args: []string{entry, "stdio"}}
		}},
		{transport: "streamableHttp", cfg: func(t *testing.T) ServerConfig {
			return ServerConfig{Name: "everything", Type: "http", URL: startHTTPEverything(t, "streamableHttp") + "/mcp",
				Headers: map[string]string{"X-Test": "${HDR}"}}
		}},
		{transport: "sse", cfg: func(t *testing.T) ServerConfig {
			return ServerConfig{Name: "everything", Type: "sse", URL: startHTTPEverything(t, "sse") + "/sse"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.transport, func(t *testing.T) {
			s := startT(t, tt.cfg(t))
			if !hasTool(s, "everything__echo") || !hasTool(s, "everything__get-sum") {
				t.Fatalf("tools %v lack echo and get-sum", s.Tools())
			}
			for _, tl := range s.Tools() {
				if tl.Kind != tools.KindMCP || tl.Server != "everything" || tl.Queue != "default" || !strings.HasPrefix(tl.Name, "everything__") {
					t.Fatalf("tool %+v", tl)
				}
			}
			// The schema is kept as the server sent it, member order included.
			const echoSchema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}`
			if got := string(s.Tools()[0].InputSchema); s.Tools()[0].LocalName != "echo" || got != echoSchema {
				t.Fatalf("echo inputSchema = %s, want %s", got, echoSchema)
			}
			if got := call(t, s, "everything__echo", `{"message":"hello"}`); got.Text != "Echo: hello" || got.IsError {
				t.Fatalf("echo = %+v", got)
			}
			if got := call(t, s, "everything__get-sum", `{"a":2,"b":3}`); !strings.Contains(got.Text, "is 5") {
				t.Fatalf("get-sum = %+v", got)
			}
			img := call(t, s, "everything__get-tiny-image", `{}`)
			lines := strings.Split(img.Text, "\n")
			if len(lines) < 3 || !strings.HasPrefix(lines[1], `{"type":"image"`) || lines[0] != "Here's the image you requested:" {
				t.Fatalf("get-tiny-image = %.300q", img.Text)
			}
			_, err := s.Call(context.Background(), "everything__echo", json.RawMessage(`{"msg":1}`))
			var ae *toolschema.ArgumentsError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), "missing property 'message'") {
				t.Fatalf("invalid arguments error = %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

// TestFilesystemServer runs the reference filesystem server with a deny
// list and reads a file through it.
func TestFilesystemServer(t *testing.T) {
	entry := refServer(t, "server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	s := startT(t, ServerConfig{Name: "fs", Command: "node", Args: []string{entry, root},
		ToolsDenied: []string{"write_*", "edit_file", "move_file", "create_directory"}, Queue: "io"})
	for _, denied := range []string{"fs__write_file", "fs__edit_file", "fs__move_file", "fs__create_directory"} {
		if hasTool(s, denied) {
			t.Fatalf("denied tool %s is exposed", denied)
		}
	}
	if !hasTool(s, "fs__read_text_file") || s.Tools()[0].Queue != "io" {
		t.Fatalf("tools %v", s.Tools())
	}
	path, _ := json.Marshal(filepath.Join(root, "a.txt"))
	if got := call(t, s, "fs__read_text_file", `{"path":`+string(path)+`}`); got.Text != "alpha\nbeta\n" || got.IsError {
		t.Fatalf("read_text_file = %+v", got)
	}
	dirArg, _ := json.Marshal(root)
	if got := call(t, s, "fs__list_directory", `{"path":`+string(dirArg)+`}`); got.Text != "[FILE] a.txt" {
		t.Fatalf("list_directory = %q", got.Text)
	}
	if got := call(t, s, "fs__read_text_file", `{"path":"/etc/passwd"}`); !got.IsError || !strings.Contains(got.Text, "denied") {
		t.Fatalf("read outside the root = %+v, want an isError result", got)
	}
	if _, err := s.Call(context.Background(), "fs__write_file", json.RawMessage(`{}`)); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("denied tool call error = %v, want ErrUnknownTool", err)
	}
}

// TestResults checks how MCP results become tool output
// (docs/contracts/ai-agent-cli.md §11 "MCP results") against the mcptest
// server over stdio.
func TestResults(t *testing.T) {
	s := startT(t, helperConfig("t", "1"))
	tests := []struct {
		name, tool, args string
		want             string
		wantLen          int
		wantIsError      bool
	}{
		{name: "text", tool: "t__echo", args: `{"text":"hi"}`, want: "hi"},
		{name: "text and other items", tool: "t__mixed", args: `{}`, want: "first\n" + `{"type":"image","mimeType":"image/png","data":"UE5H"}` + "\nlast"},
		{name: "isError is a failure with its text", tool: "t__fail", args: `{"message":"disk full"}`, want: "disk full", wantIsError: true},
		{name: "huge output arrives whole", tool: "t__huge", args: `{"bytes":2000000}`, wantLen: 2000000},
		{name: "empty arguments", tool: "t__mixed", args: ``, want: "first\n" + `{"type":"image","mimeType":"image/png","data":"UE5H"}` + "\nlast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := call(t, s, tt.tool, tt.args)
			if got.IsError != tt.wantIsError {
				t.Fatalf("IsError = %v, want %v", got.IsError, tt.wantIsError)
			}
			if tt.wantLen > 0 {
				if len(got.Text) != tt.wantLen {
					t.Fatalf("len = %d, want %d", len(got.Text), tt.wantLen)
				}
				return
			}
			if got.Text != tt.want {
				t.Fatalf("Text = %q, want %q", got.Text, tt.want)
			}
		})
	}
}

// TestInvalidResult: a result the client cannot decode fails the call, and
// the session goes on.
func TestInvalidResult(t *testing.T) {
	s := startT(t, helperConfig("t", "1"))
	_, err := s.Call(context.Background(), "t__invalid", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "no-such-content") {
		t.Fatalf("invalid result error = %v", err)
	}
	if got := call(t, s, "t__echo", `{"text":"still here"}`); got.Text != "still here" {
		t.Fatalf("echo after invalid result = %+v", got)
	}
}

// TestToolTimeout: a call cut by its context reports the context's error,
// and the server keeps serving.
func TestToolTimeout(t *testing.T) {
	s := startT(t, helperConfig("t", "1"))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	// The tool would sleep an hour: a call that returns at all was cut by
	// its context.
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "t__slow", json.RawMessage(`{"ms":3600000}`))
		errc <- err
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("slow call error = %v, want DeadlineExceeded", err)
		}
	case <-time.After(failAfter):
		t.Fatal("the timed-out call did not return")
	}
	if got := call(t, s, "t__echo", `{"text":"after"}`); got.Text != "after" {
		t.Fatalf("echo after timeout = %+v", got)
	}
	eventually(t, "the server stopped the cancelled call", func() bool {
		return strings.Contains(call(t, s, "t__stats", `{}`).Text, `"inflight":0`)
	})
}

// TestCrashMidSession: a server that dies mid-call fails that call and
// every later one; nothing else breaks and Close is clean.
func TestCrashMidSession(t *testing.T) {
	s := startT(t, helperConfig("t", "1"))
	_, err := s.Call(context.Background(), "t__crash", json.RawMessage(`{}`))
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("crash call error = %v, want ErrNotRunning with the server's last stderr line", err)
	}
	eventually(t, "server marked down", func() bool { return s.downErr() != nil })
	_, err = s.Call(context.Background(), "t__echo", json.RawMessage(`{"text":"x"}`))
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "MCP server 't'") || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("call after crash error = %v, want ErrNotRunning naming the server and its stderr", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close after crash: %v", err)
	}
	if kids := children(t, os.Getpid()); len(kids) != 0 {
		t.Fatalf("children left after Close: %v", kids)
	}
}

// TestStartFailures: every way a server can fail to start is a StartError
// naming the server (the CLI's exit 3), and leaves nothing running.
func TestStartFailures(t *testing.T) {
	tests := []struct {
		name      string
		cfg       ServerConfig
		wantStage string
		wantText  string
	}{
		{name: "missing command", cfg: ServerConfig{Name: "nope", Command: "salve-no-such-mcp-server"}, wantStage: StageSpawn},
		{name: "exits before initialize", cfg: helperConfig("quitter", "exit"), wantStage: StageInitialize, wantText: "exiting before initialize"},
		{name: "nothing listening", cfg: ServerConfig{Name: "web", URL: "http://127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/mcp"}, wantStage: StageConnect},
		{name: "sse nothing listening", cfg: ServerConfig{Name: "web", Type: "sse", URL: "http://127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/sse"}, wantStage: StageConnect},
		{name: "websocket nothing listening", cfg: ServerConfig{Name: "ws", Type: "websocket", URL: "ws://127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/"}, wantStage: StageConnect},
		{name: "websocket without url", cfg: ServerConfig{Name: "ws", Type: "websocket"}, wantStage: StageConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(context.Background(), tt.cfg, Options{StartTimeout: 10 * time.Second})
			if s != nil {
				_ = s.Close()
				t.Fatal("Start succeeded")
			}
			var se *StartError
			if !errors.As(err, &se) || !errors.Is(err, ErrStart) {
				t.Fatalf("error = %v, want a StartError", err)
			}
			if se.Server != tt.cfg.Name || se.Stage != tt.wantStage || !strings.Contains(err.Error(), "MCP server '"+tt.cfg.Name+"'") {
				t.Fatalf("StartError = %+v (%v), want server %s stage %s", se, err, tt.cfg.Name, tt.wantStage)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("error %q lacks %q", err, tt.wantText)
			}
			if kids := children(t, os.Getpid()); len(kids) != 0 {
				t.Fatalf("children left after a failed start: %v", kids)
			}
		})
	}
}

// TestUncompilableSchema: a tool whose inputSchema cannot compile fails the
// start with the exit-5 class, and the server is stopped.
func TestUncompilableSchema(t *testing.T) {
	_, err := Start(context.Background(), helperConfig("t", "badschema"), Options{})
	var ce *toolschema.CompileError
	if !errors.As(err, &ce) || !errors.Is(err, toolschema.ErrSchema) || ce.Tool != "t__badschema" || errors.Is(err, ErrStart) {
		t.Fatalf("error = %v, want a CompileError for t__badschema", err)
	}
	if kids := children(t, os.Getpid()); len(kids) != 0 {
		t.Fatalf("children left: %v", kids)
	}
}

// TestStdioEnvironment: the child sees exactly HOME, LOGNAME, PATH, SHELL,
// TERM and USER (those the parent has) plus its configured env.
func TestStdioEnvironment(t *testing.T) {
	t.Setenv("SALVE_TEST_SECRET", "must-not-leak")
	t.Setenv("TERM", "xterm-test")
	cfg := helperConfig("t", "1")
	cfg.Env["EXTRA"] = "${WHO}"
	s, err := Start(context.Background(), cfg, Options{Expand: func(v string) string { return strings.ReplaceAll(v, "${WHO}", "me") }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := strings.Split(call(t, s, "t__env", `{}`).Text, "\n")
	want := []string{"EXTRA=me", helperEnv + "=1"}
	for _, k := range InheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			want = append(want, k+"="+v)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("child environment\n got %q\nwant %q", got, want)
	}
}

// TestCloseLeavesNoOrphans starts two stdio servers, one of which starts a
// grandchild, closes them, and checks /proc: no child of this process and
// no grandchild is left.
func TestCloseLeavesNoOrphans(t *testing.T) {
	cfgs := []ServerConfig{helperConfig("t", "1")}
	if _, err := os.Stat(filepath.Join("..", "..", "..", "..", ".deps", "mcp", "node_modules", "@modelcontextprotocol", "server-everything")); err == nil {
		cfgs = append(cfgs, ServerConfig{Name: "everything", Command: "node", Args: []string{refServer(t, "server-everything"), "stdio"}})
	}
	var servers []*Server
	for _, cfg := range cfgs {
		s, err := Start(context.Background(), cfg, Options{TerminateDuration: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, s)
	}
	pid, err := strconv.Atoi(call(t, servers[0], "t__spawn", `{}`).Text)
	if err != nil || !alive(pid) {
		t.Fatalf("spawned grandchild %d not alive: %v", pid, err)
	}
	if kids := children(t, os.Getpid()); len(kids) != len(cfgs) {
		t.Fatalf("children while running = %v, want %d", kids, len(cfgs))
	}
	for _, s := range servers {
		if err := s.Close(); err != nil {
			t.Fatalf("Close %s: %v", s.Name(), err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close %s: %v", s.Name(), err)
		}
	}
	if kids := children(t, os.Getpid()); len(kids) != 0 {
		t.Fatalf("children left after Close: %v", kids)
	}
	eventually(t, "grandchild killed", func() bool { return !alive(pid) })
}

// TestHTTPServerGone: a streamable HTTP server that goes away mid-session
// fails the calls that follow, names the server, and Close stays clean.
func TestHTTPServerGone(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcptest.HTTPHandler(mcptest.Options{}))
	srv := httptest.NewServer(mux)
	s := startT(t, ServerConfig{Name: "web", URL: srv.URL + "/mcp"})
	if got := call(t, s, "web__echo", `{"text":"up"}`); got.Text != "up" {
		t.Fatalf("echo = %+v", got)
	}
	srv.CloseClientConnections()
	srv.Close()
	_, err := s.Call(context.Background(), "web__echo", json.RawMessage(`{"text":"down"}`))
	if err == nil || !strings.Contains(err.Error(), "MCP server") || !strings.Contains(err.Error(), "'web'") {
		t.Fatalf("call to a gone server: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

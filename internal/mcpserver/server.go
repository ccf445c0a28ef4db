// Package mcpserver serves salve's own tools over the Model Context
// Protocol: heal, parse, exec, runs_list and runs_show, each with JSON
// Schemas for its input and output, so that any MCP client (a coding
// assistant, an ai-agent agent) can call the deterministic parser and the
// gated healer.
//
// Every failure reaches the client as a tool error with a clear message: a
// bad argument, a workspace that is not a directory, an unknown run, even a
// panic inside a tool. A client that cancels a call (or goes away) cancels
// the work behind it; a heal then cleans up its worktree as always.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/httpguard"
)

// HealFunc runs one heal of in.Workspace (already checked, absolute) with
// the caller's pipeline. progress receives the heal's live progress; the
// run honours ctx.
type HealFunc func(ctx context.Context, in HealInput, progress heal.Progress) (*results.Results, error)

// DefaultMaxRunning bounds the heals and executions running at once.
const DefaultMaxRunning = 2

// DefaultMaxBodyBytes bounds one HTTP request body (a parse call carries
// the whole log).
const DefaultMaxBodyBytes = 32 << 20

// Options configure a Server.
type Options struct {
	// Version is the server version reported to clients.
	Version string
	// Heal runs a heal; without it the heal tool answers an error.
	Heal HealFunc
	// StorePath is the run store that exec records into and the runs_*
	// tools read; empty means no store (exec is not recorded and the runs
	// tools answer an error).
	StorePath string
	// Isolation is the build sandbox used when a call names none; empty
	// means "auto".
	Isolation string
	// AllowedRoots, when set, confine the workspaces a client may name to
	// these directories and their subdirectories.
	AllowedRoots []string
	// AllowPush lets heal calls push the heal branch.
	AllowPush bool
	// MaxRunning bounds the heals and executions running at once; excess
	// calls wait (zero means DefaultMaxRunning).
	MaxRunning int
	// Getenv reads the server's environment (the variables passed to
	// builds); nil means none.
	Getenv func(string) string
	// Logger receives the server's log records; nil discards them.
	Logger *slog.Logger

	// Token, when set, is the bearer token HTTP clients must send.
	Token string
	// MaxBodyBytes bounds an HTTP request body; zero means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// Server is the MCP server with salve's tools.
type Server struct {
	opts  Options
	srv   *sdk.Server
	slots chan struct{}

	// repoMu guards repos: one channel per workspace, held by the heal of
	// that workspace that runs, so that heals of one repository take turns.
	repoMu sync.Mutex
	repos  map[string]chan struct{}

	// stop is cancelled when serving ends: every running tool is then
	// cancelled, and Serve* wait for them to return.
	stop     context.Context
	stopNow  context.CancelFunc
	mu       sync.Mutex
	stopping bool
	running  sync.WaitGroup
}

// New builds the server and registers its tools.
func New(opts Options) *Server {
	if opts.MaxRunning <= 0 {
		opts.MaxRunning = DefaultMaxRunning
	}
	if opts.Isolation == "" {
		opts.Isolation = "auto"
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, slots: make(chan struct{}, opts.MaxRunning), repos: map[string]chan struct{}{}}
	s.stop, s.stopNow = context.WithCancel(context.Background())
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "salve", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: opts.Logger})
	s.addTools()
	return s
}

const instructions = `salve fixes failing builds safely. Tools:
- parse: the located errors of a build log (deterministic, no LLM).
- exec: run a project's build and tests in a sandbox, as CI would.
- heal: fix a failing build on a new branch in its own worktree (the user's checkout is never touched), with gated, minimal, committed fixes.
- runs_list and runs_show: read the run store (what exec and heal recorded).
Workspaces are paths on the server's host.`

// MCP returns the underlying SDK server, for callers that serve it over
// their own transport.
func (s *Server) MCP() *sdk.Server { return s.srv }

// ServeStdio serves one client on in and out until in ends or ctx is
// cancelled, then cancels the tools still running and waits for them.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	return s.ServeTransport(ctx, &sdk.IOTransport{Reader: in, Writer: out})
}

// ServeTransport serves one client over t until it disconnects or ctx is
// cancelled, then cancels the tools still running and waits for them.
func (s *Server) ServeTransport(ctx context.Context, t sdk.Transport) error {
	err := s.srv.Run(ctx, t)
	s.shutdown()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Handler returns the streamable HTTP handler, served at /mcp, with GET
// /health, behind the shared guard (package httpguard): on loopback a
// foreign Host is refused (DNS rebinding), so is a browser request from
// another origin, a request without the bearer token when one is set (but
// /health), and a body that is not JSON or is over MaxBodyBytes.
func (s *Server) Handler() http.Handler {
	// The guard checks the Host of every route; the SDK's own check of
	// /mcp alone would be a second copy of that rule.
	mcpH := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv },
		&sdk.StreamableHTTPOptions{MaxRequestBodyBytes: s.opts.MaxBodyBytes, SessionTimeout: time.Hour, Logger: s.opts.Logger,
			DisableLocalhostProtection: true})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
	})
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.isStopping() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
			return
		}
		mcpH.ServeHTTP(w, r)
	}))
	g := httpguard.Guard{
		Token:        httpguard.Token{Value: s.opts.Token},
		Rules:        []httpguard.Rule{{Path: "/health", NoToken: true}},
		JSON:         true,
		MaxBodyBytes: s.opts.MaxBodyBytes,
	}
	return g.Handler(mux)
}

// ServeHTTP serves streamable HTTP on ln until ctx is cancelled; it then
// stops taking requests, cancels the tools still running, waits for them
// (a heal removes its worktree) and returns.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.shutdown()
		return fmt.Errorf("mcp http: %w", err)
	case <-ctx.Done():
	}
	s.shutdown()
	// The calls have ended and their answers are on their way; what stays
	// open is clients' idle event streams, closed after a short grace.
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return nil
}

// shutdown refuses new calls, cancels the running ones and waits for them.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.stopNow()
	s.running.Wait()
}

func (s *Server) isStopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

// begin registers a running call; it fails once the server is stopping.
func (s *Server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return false
	}
	s.running.Add(1)
	return true
}

// acquire waits for a slot among the heals and executions running at once.
func (s *Server) acquire(ctx context.Context) (func(), error) {
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("cancelled while waiting for a free slot (%d heal or exec calls run at once): %w", cap(s.slots), ctx.Err())
	}
}

// lockRepo waits until no other heal of workspace runs (git takes
// repository-wide locks when a heal creates its worktree and branch).
func (s *Server) lockRepo(ctx context.Context, workspace string) (func(), error) {
	key := workspace
	if real, err := filepath.EvalSymlinks(workspace); err == nil {
		key = real
	}
	s.repoMu.Lock()
	ch := s.repos[key]
	if ch == nil {
		ch = make(chan struct{}, 1)
		s.repos[key] = ch
	}
	s.repoMu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("cancelled while waiting for another heal of %s: %w", workspace, ctx.Err())
	}
}

// guard wraps a tool handler: the call is cancelled when the client cancels
// it or the server stops, the server waits for it before exiting, and a
// panic becomes a tool error instead of a crash.
func guard[In, Out any](s *Server, name string, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		if !s.begin() {
			return nil, out, errors.New("the server is shutting down")
		}
		defer s.running.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.stop, cancel)
		defer stop()
		defer func() {
			if r := recover(); r != nil {
				s.opts.Logger.Error("tool panicked", "tool", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("%s: internal error: %v", name, r)
			}
		}()
		start := time.Now()
		res, out, err = h(ctx, req, in)
		s.opts.Logger.Info("tool call", "tool", name, "seconds", time.Since(start).Seconds(), "error", errString(err))
		return res, out, err
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

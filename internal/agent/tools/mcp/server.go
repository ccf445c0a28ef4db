package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/queue"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
	"github.com/salve-dev/salve/internal/sandbox"
)

// DefaultStartTimeout bounds connecting, initialising and listing tools.
const DefaultStartTimeout = 30 * time.Second

// stderrKeep is how many bytes of a stdio server's stderr are kept.
const stderrKeep = 16 << 10

// Options tune how servers are started. The zero value is usable.
type Options struct {
	// Logger receives the client's logs; nil discards them.
	Logger *slog.Logger
	// StartTimeout bounds start-up per server; zero means
	// [DefaultStartTimeout].
	StartTimeout time.Duration
	// TerminateDuration is how long Close waits for a stdio server to exit
	// once its stdin is closed; zero means [DefaultTerminateDuration].
	TerminateDuration time.Duration
	// Expand fills the `${NAME}` placeholders of env and header values when
	// the server starts (docs/contracts/ai-agent-cli.md §9.2); nil leaves
	// them as they are.
	Expand func(string) string
	// LookupEnv reads the parent's variables for the child environment;
	// nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Stderr, when set, also receives stdio servers' standard error live
	// (--trace-mcp).
	Stderr io.Writer
	// HTTPTransport is the round tripper of http and sse servers; nil means
	// http.DefaultTransport.
	HTTPTransport http.RoundTripper
	// SkipSchemaCompile lists tools without compiling their schemas (for
	// --list-tools, which reports schema problems itself). Calls then skip
	// argument validation.
	SkipSchemaCompile bool
	// ClientName and ClientVersion identify the client to servers; empty
	// means "salve-ai-agent" and "dev".
	ClientName, ClientVersion string
}

// toolEntry is one exposed tool.
type toolEntry struct {
	tool   tools.Tool
	schema *toolschema.Schema
}

// Server is one started MCP server; it implements tools.Provider. Its
// methods are safe for concurrent use. Close it when the session ends.
type Server struct {
	name    string
	kind    string
	logger  *slog.Logger
	session *sdk.ClientSession
	child   *child // stdio only
	http    *http.Client
	tap     *schemaTap
	stderr  *sandbox.Capture

	list   []tools.Tool
	byName map[string]*toolEntry

	cancel    context.CancelFunc // ends the connection's context
	done      chan struct{}      // closed when the connection ends
	closing   chan struct{}      // closed when Close starts
	closeOnce sync.Once
	closeErr  error
}

var _ tools.Provider = (*Server)(nil)

// Start starts (stdio) or connects to (http, sse) the server of cfg,
// initialises the MCP session, lists and filters its tools, and compiles
// their input schemas. Start-up failures are *[StartError]; a schema that
// does not compile is a *toolschema.CompileError. On error nothing is left
// running.
func Start(ctx context.Context, cfg ServerConfig, opts Options) (*Server, error) {
	kind, err := cfg.transport()
	if err != nil {
		return nil, &StartError{Server: cfg.Name, Stage: StageConfig, Err: err}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		name:    cfg.Name,
		kind:    kind,
		logger:  logger.With("mcp_server", cfg.Name),
		stderr:  sandbox.NewCapture(stderrKeep),
		tap:     newSchemaTap(),
		done:    make(chan struct{}),
		closing: make(chan struct{}),
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The connection lives until Close (an SSE stream is bound to the
	// context it was opened with); until start-up is over, it also ends
	// with startCtx.
	lifeCtx, lifeCancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = lifeCancel
	stopBinding := context.AfterFunc(startCtx, lifeCancel)
	defer stopBinding()

	transport, ch, httpc, err := transportFor(kind, cfg, opts, s.stderr, s.tap)
	if err != nil {
		lifeCancel()
		return nil, s.failStart(StageSpawn, err)
	}
	s.child, s.http = ch, httpc
	client := sdk.NewClient(&sdk.Implementation{Name: or(opts.ClientName, "salve-ai-agent"), Version: or(opts.ClientVersion, "dev")},
		&sdk.ClientOptions{Logger: s.logger})
	session, err := client.Connect(lifeCtx, transport, nil)
	if err != nil {
		lifeCancel()
		closeIdle(httpc)
		stage := StageInitialize
		if ch == nil {
			stage = StageConnect
		}
		return nil, s.failStart(stage, err)
	}
	s.session = session
	go s.watch()

	if err := s.loadTools(startCtx, cfg, opts); err != nil {
		_ = s.Close()
		return nil, err
	}
	s.logger.Debug("MCP server started", "transport", kind, "tools", len(s.list))
	return s, nil
}

// failStart cleans up after a failed start and builds the error.
func (s *Server) failStart(stage string, err error) error {
	if s.child != nil {
		s.child.kill()
	}
	return &StartError{Server: s.name, Stage: stage, Err: err, Stderr: string(s.stderr.Bytes())}
}

// loadTools lists, filters and compiles the server's tools.
func (s *Server) loadTools(ctx context.Context, cfg ServerConfig, opts Options) error {
	filter := Filter{Allowed: cfg.ToolsAllowed, Denied: cfg.ToolsDenied}
	s.byName = map[string]*toolEntry{}
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return &StartError{Server: s.name, Stage: StageListTools, Err: err, Stderr: string(s.stderr.Bytes())}
		}
		if !filter.Allows(t.Name) {
			continue
		}
		exposed := ExposedName(s.name, t.Name)
		if _, dup := s.byName[exposed]; dup {
			s.logger.Warn("MCP tool name collides after sanitising; keeping the first", "tool", t.Name, "exposed", exposed)
			continue
		}
		raw, ok := s.tap.schema(t.Name)
		if !ok {
			var err error
			if raw, err = json.Marshal(t.InputSchema); err != nil || string(raw) == "null" {
				raw = json.RawMessage(`{"type":"object"}`)
			}
		}
		entry := &toolEntry{tool: tools.Tool{
			Name: exposed, LocalName: t.Name, Server: s.name, Kind: tools.KindMCP,
			Description: t.Description, InputSchema: raw, Queue: or(cfg.Queue, queue.DefaultName),
		}}
		if !opts.SkipSchemaCompile {
			if entry.schema, err = toolschema.Compile(exposed, raw); err != nil {
				return err
			}
		}
		s.byName[exposed] = entry
		s.list = append(s.list, entry.tool)
	}
	return nil
}

// watch marks the server down when its connection ends.
func (s *Server) watch() {
	err := s.session.Wait()
	close(s.done)
	select {
	case <-s.closing:
	default:
		s.logger.Warn("MCP server connection ended", "error", err, "stderr", lastLines(string(s.stderr.Bytes()), 3))
	}
}

// Name is the configured server name.
func (s *Server) Name() string { return s.name }

// Tools implements tools.Provider: the filtered tools, in the server's
// order.
func (s *Server) Tools() []tools.Tool { return append([]tools.Tool(nil), s.list...) }

// ErrNotRunning is wrapped by calls to a server whose connection ended.
var ErrNotRunning = errors.New("MCP server is not running")

// ErrUnknownTool is wrapped by calls to a name the provider does not expose.
var ErrUnknownTool = errors.New("unknown tool")

// ValidateArgs checks args against the tool's input schema. It returns an
// error wrapping [ErrUnknownTool] or a *toolschema.ArgumentsError
// ("invalid arguments: …"). The engine calls it before execution, so an
// invalid call gets no accounting entry (docs/contracts/ai-agent-cli.md §11).
func (s *Server) ValidateArgs(name string, args json.RawMessage) error {
	e, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("%w '%s'", ErrUnknownTool, name)
	}
	return e.schema.Validate(args)
}

// Call implements tools.Provider. It validates the arguments, calls the tool
// and renders its result (see [RenderResult]). A server that is down, a
// transport error or an invalid result is an error; ctx's deadline is
// returned as ctx's error so the engine can report "timeout".
func (s *Server) Call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	e, ok := s.byName[name]
	if !ok {
		return tools.Result{}, fmt.Errorf("%w '%s'", ErrUnknownTool, name)
	}
	if err := e.schema.Validate(args); err != nil {
		return tools.Result{}, err
	}
	if err := s.downErr(); err != nil {
		return tools.Result{}, err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := s.session.CallTool(ctx, &sdk.CallToolParams{Name: e.tool.LocalName, Arguments: args})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return tools.Result{}, fmt.Errorf("%s: %w", name, ctxErr)
		}
		if s.connectionLost(err) {
			return tools.Result{}, s.downErr()
		}
		return tools.Result{}, fmt.Errorf("MCP server '%s': %w", s.name, err)
	}
	return RenderResult(res)
}

// lostConnectionWait bounds how long a failed call waits for the watcher to
// confirm that the connection ended.
const lostConnectionWait = 2 * time.Second

// connectionLost reports whether err means the connection ended (the server
// exited or dropped it). It waits briefly for the watcher, so the caller can
// report the server as down with its stderr. A stdio server that dies during
// a call fails the call with whichever its reader sees first: the end of the
// pipe (EOF), or the pipe closed under the read once the process is reaped
// (fs.ErrClosed); both mean the same.
func (s *Server) connectionLost(err error) bool {
	if !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) &&
		!errors.Is(err, fs.ErrClosed) {
		return s.downErr() != nil
	}
	select {
	case <-s.done:
		return true
	case <-time.After(lostConnectionWait):
		return false
	}
}

// downErr returns the error of a server whose connection ended, or nil.
func (s *Server) downErr() error {
	select {
	case <-s.done:
	default:
		return nil
	}
	reason := "connection closed"
	if tail := lastLines(string(s.stderr.Bytes()), 1); tail != "" {
		reason += "; stderr: " + tail
	}
	return fmt.Errorf("%w: MCP server '%s': %s", ErrNotRunning, s.name, reason)
}

// Close ends the session. A stdio server's stdin is closed; it gets
// TerminateDuration to exit, then its whole process group is killed. Close
// is safe to call more than once and concurrently. Closing a server that
// was already down is not an error.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		if s.session != nil {
			wasDown := s.downErr() != nil
			err := s.session.Close()
			if err != nil && s.kind != TypeStdio {
				// The session is gone either way; an HTTP server that cannot
				// take the DELETE is not the caller's problem.
				s.logger.Debug("MCP session close", "error", err)
				err = nil
			}
			if err != nil && !wasDown && !isExitNoise(err) {
				s.closeErr = fmt.Errorf("close MCP server '%s': %w", s.name, err)
			}
			<-s.done
		}
		if s.child != nil {
			if err := s.child.Close(); err != nil && s.closeErr == nil {
				s.closeErr = fmt.Errorf("close MCP server '%s': %w", s.name, err)
			}
			s.child.killGroup(syscall.SIGKILL)
		}
		if s.cancel != nil {
			s.cancel()
		}
		closeIdle(s.http)
	})
	return s.closeErr
}

// isExitNoise reports errors that only say the child was stopped the way
// Close stops it.
func isExitNoise(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) || errors.Is(err, io.EOF) || errors.Is(err, exec.ErrWaitDelay) ||
		errors.Is(err, sdk.ErrConnectionClosed)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

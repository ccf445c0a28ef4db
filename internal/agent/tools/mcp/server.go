package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/agent/tools"
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

	// Supervise keeps the server up for as long as the Server is open (a
	// headend's shared servers): when its connection ends, or a health
	// probe after a timed-out or failed call gets no answer, it is
	// restarted, with Backoff between attempts, until an attempt succeeds.
	// Without it a server that went down stays down.
	Supervise bool
	// Backoff is the wait before restart attempt n (0 is the first after
	// the server went down); nil means [DefaultBackoff].
	Backoff func(attempt int) time.Duration
	// Wait waits for d, or until ctx ends (then it returns ctx's error);
	// nil means a timer. Tests pass one that waits on their own events.
	Wait func(ctx context.Context, d time.Duration) error
	// ProbeTimeout bounds one health probe; zero means
	// [DefaultProbeTimeout].
	ProbeTimeout time.Duration
	// OnState, when set, is told each change of a supervised server's
	// state (see [State]), in order, from the supervisor's goroutine; it
	// must not block.
	OnState func(State)
}

// Server is one started MCP server; it implements tools.Provider. Its
// methods are safe for concurrent use. Close it when the session (or, for
// a supervised server, the process) ends.
type Server struct {
	name   string
	kind   string
	cfg    ServerConfig
	opts   Options
	logger *slog.Logger

	mu sync.Mutex
	// cur is the current connection; while a supervised server is down it
	// is the one that ended, whose tools and stderr still count.
	cur *conn
	// state is a supervised server's state.
	state State
	// trying is open while a restart attempt runs, and closed at its end.
	trying chan struct{}

	// life ends at Close; it bounds the supervisor, its attempts and probes.
	life     context.Context
	stop     context.CancelFunc
	kick     chan probeFailure // a failed probe asks for a restart
	probing  atomic.Bool
	tasks    sync.WaitGroup // the supervisor and the probes
	closeOne sync.Once
	closeErr error
}

var _ tools.Provider = (*Server)(nil)

// Start starts (stdio) or connects to (http, sse) the server of cfg,
// initialises the MCP session, lists and filters its tools, and compiles
// their input schemas. Start-up failures are *[StartError]; a schema that
// does not compile is a *toolschema.CompileError. On error nothing is left
// running. With Options.Supervise the server is restarted whenever it goes
// down, until Close (see [State]).
func Start(ctx context.Context, cfg ServerConfig, opts Options) (*Server, error) {
	kind, err := cfg.transport()
	if err != nil {
		return nil, &StartError{Server: cfg.Name, Stage: StageConfig, Err: err}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("mcp_server", cfg.Name)
	c, err := dial(ctx, kind, cfg, opts, logger)
	if err != nil {
		return nil, err
	}
	s := &Server{name: cfg.Name, kind: kind, cfg: cfg, opts: opts, logger: logger, cur: c}
	s.logger.Debug("MCP server started", "transport", kind, "tools", len(c.list))
	if opts.Supervise {
		s.life, s.stop = context.WithCancel(context.WithoutCancel(ctx))
		s.kick = make(chan probeFailure, 1)
		s.state = State{Server: s.name, Event: EventStarted, Up: true}
		s.notify(s.state)
		s.tasks.Add(1)
		go s.supervise(c)
	}
	return s, nil
}

// Name is the configured server name.
func (s *Server) Name() string { return s.name }

// conn returns the current connection.
func (s *Server) conn() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Tools implements tools.Provider: the filtered tools, in the server's
// order (of its latest connection, for a restarted server).
func (s *Server) Tools() []tools.Tool { return append([]tools.Tool(nil), s.conn().list...) }

// ErrNotRunning is wrapped by calls to a server whose connection ended.
var ErrNotRunning = errors.New("MCP server is not running")

// ErrUnknownTool is wrapped by calls to a name the provider does not expose.
var ErrUnknownTool = errors.New("unknown tool")

// ValidateArgs checks args against the tool's input schema. It returns an
// error wrapping [ErrUnknownTool] or a *toolschema.ArgumentsError
// ("invalid arguments: …"). The engine calls it before execution, so an
// invalid call gets no accounting entry (docs/contracts/ai-agent-cli.md §11).
func (s *Server) ValidateArgs(name string, args json.RawMessage) error {
	e, ok := s.conn().byName[name]
	if !ok {
		return fmt.Errorf("%w '%s'", ErrUnknownTool, name)
	}
	return e.schema.Validate(args)
}

// Call implements tools.Provider. It validates the arguments, calls the tool
// and renders its result (see [RenderResult]). A server that is down, a
// transport error or an invalid result is an error; ctx's deadline is
// returned as ctx's error and the server's requestTimeoutMs as an error
// wrapping tools.ErrTimeout, so the engine can report "timeout". A call
// that finds a supervised server in the middle of a restart attempt waits
// for the attempt (within ctx); a server that is down is reported as such,
// with why and when it is tried next, so the model is told.
func (s *Server) Call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	c, err := s.ready(ctx)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", name, err)
	}
	e, ok := c.byName[name]
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
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if t := s.cfg.RequestTimeout; t > 0 {
		rctx, cancel = context.WithTimeout(ctx, t)
	}
	defer cancel()
	res, err := c.session.CallTool(rctx, &sdk.CallToolParams{Name: e.tool.LocalName, Arguments: args})
	if err != nil {
		return tools.Result{}, s.callError(ctx, rctx, c, name, err)
	}
	return RenderResult(res)
}

// callError classifies a failed call. A timeout, and an error that is not
// the server's own answer, make a supervised server probe its health.
func (s *Server) callError(ctx, rctx context.Context, c *conn, name string, err error) error {
	switch {
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.suspect(c)
		}
		return fmt.Errorf("%s: %w", name, ctx.Err())
	case rctx.Err() != nil:
		s.suspect(c)
		return fmt.Errorf("%s: %w (requestTimeoutMs %d)", name, tools.ErrTimeout, s.cfg.RequestTimeout.Milliseconds())
	case c.connectionLost(err):
		if down := s.downErr(); down != nil {
			return down
		}
	case !answered(err):
		s.suspect(c)
	}
	return fmt.Errorf("MCP server '%s': %w", s.name, err)
}

// downErr returns the error of a server that is down, or nil.
func (s *Server) downErr() error {
	s.mu.Lock()
	c, st := s.cur, s.state
	s.mu.Unlock()
	if s.opts.Supervise && !st.Up {
		return fmt.Errorf("%w: MCP server '%s' is down: %s", ErrNotRunning, s.name, st.why())
	}
	if !c.ended() {
		return nil
	}
	reason := c.endReason()
	if s.opts.Supervise {
		reason += "; it is being restarted"
	}
	return fmt.Errorf("%w: MCP server '%s': %s", ErrNotRunning, s.name, reason)
}

// Close ends the session. A stdio server's stdin is closed; it gets
// TerminateDuration to exit, then its whole process group is killed. A
// supervised server's restarts and probes stop first. Close is safe to
// call more than once and concurrently. Closing a server that was already
// down is not an error.
func (s *Server) Close() error {
	s.closeOne.Do(func() {
		if s.stop != nil {
			s.stop()
			s.tasks.Wait()
		}
		s.closeErr = s.conn().close()
	})
	return s.closeErr
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

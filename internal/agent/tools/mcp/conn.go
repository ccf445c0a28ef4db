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

// toolEntry is one exposed tool.
type toolEntry struct {
	tool   tools.Tool
	schema *toolschema.Schema
}

// conn is one connection to a server: a started stdio child, or an HTTP or
// SSE session, initialised and with its tools listed. A [Server] holds one
// at a time; a supervised server replaces it when it restarts.
type conn struct {
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
	closing   chan struct{}      // closed when close starts
	closeOnce sync.Once
	closeErr  error
}

// dial starts (stdio) or connects to (http, sse) the server of cfg,
// initialises the MCP session, lists and filters its tools, and compiles
// their input schemas, all within opts.StartTimeout. Failures are as
// [Start] describes; on error nothing is left running.
func dial(ctx context.Context, kind string, cfg ServerConfig, opts Options, logger *slog.Logger) (*conn, error) {
	c := &conn{
		name:    cfg.Name,
		kind:    kind,
		logger:  logger,
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
	// The connection lives until close (an SSE stream is bound to the
	// context it was opened with); until start-up is over, it also ends
	// with startCtx.
	lifeCtx, lifeCancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = lifeCancel
	stopBinding := context.AfterFunc(startCtx, lifeCancel)
	defer stopBinding()

	transport, ch, httpc, err := transportFor(kind, cfg, opts, c.stderr, c.tap)
	if err != nil {
		lifeCancel()
		return nil, c.failStart(StageSpawn, err)
	}
	c.child, c.http = ch, httpc
	client := sdk.NewClient(&sdk.Implementation{Name: or(opts.ClientName, "salve-ai-agent"), Version: or(opts.ClientVersion, "dev")},
		&sdk.ClientOptions{Logger: logger})
	session, err := client.Connect(lifeCtx, transport, nil)
	if err != nil {
		lifeCancel()
		closeIdle(httpc)
		stage := StageInitialize
		if ch == nil {
			stage = StageConnect
		}
		return nil, c.failStart(stage, err)
	}
	c.session = session
	go c.watch()

	if err := c.loadTools(startCtx, cfg, opts); err != nil {
		_ = c.close()
		return nil, err
	}
	return c, nil
}

// failStart cleans up after a failed start and builds the error.
func (c *conn) failStart(stage string, err error) error {
	if c.child != nil {
		c.child.kill()
	}
	return &StartError{Server: c.name, Stage: stage, Err: err, Stderr: string(c.stderr.Bytes())}
}

// loadTools lists, filters and compiles the server's tools.
func (c *conn) loadTools(ctx context.Context, cfg ServerConfig, opts Options) error {
	filter := Filter{Allowed: cfg.ToolsAllowed, Denied: cfg.ToolsDenied}
	c.byName = map[string]*toolEntry{}
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return &StartError{Server: c.name, Stage: StageListTools, Err: err, Stderr: string(c.stderr.Bytes())}
		}
		if !filter.Allows(t.Name) {
			continue
		}
		exposed := ExposedName(c.name, t.Name)
		if _, dup := c.byName[exposed]; dup {
			c.logger.Warn("MCP tool name collides after sanitising; keeping the first", "tool", t.Name, "exposed", exposed)
			continue
		}
		raw, ok := c.tap.schema(t.Name)
		if !ok {
			var err error
			if raw, err = json.Marshal(t.InputSchema); err != nil || string(raw) == "null" {
				raw = json.RawMessage(`{"type":"object"}`)
			}
		}
		entry := &toolEntry{tool: tools.Tool{
			Name: exposed, LocalName: t.Name, Server: c.name, Kind: tools.KindMCP,
			Description: t.Description, InputSchema: raw, Queue: or(cfg.Queue, queue.DefaultName),
		}}
		if !opts.SkipSchemaCompile {
			if entry.schema, err = toolschema.Compile(exposed, raw); err != nil {
				return err
			}
		}
		c.byName[exposed] = entry
		c.list = append(c.list, entry.tool)
	}
	return nil
}

// watch marks the connection down when it ends.
func (c *conn) watch() {
	err := c.session.Wait()
	close(c.done)
	select {
	case <-c.closing:
	default:
		c.logger.Warn("MCP server connection ended", "error", err, "stderr", lastLines(string(c.stderr.Bytes()), 3))
	}
}

// lostConnectionWait bounds how long a failed call waits for the watcher to
// confirm that the connection ended.
const lostConnectionWait = 2 * time.Second

// connectionLost reports whether err means the connection ended (the server
// exited or dropped it). It waits briefly for the watcher, so the caller can
// report the server as down with its stderr. A stdio server that dies during
// a call fails the call with whichever its reader sees first: the end of the
// pipe (EOF), or the pipe closed under the read once the process is reaped
// (fs.ErrClosed); both mean the same. A streamable HTTP session has no
// stream of its own to end, so its failed call is not waited on.
func (c *conn) connectionLost(err error) bool {
	if c.kind == TypeHTTP || !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) &&
		!errors.Is(err, fs.ErrClosed) {
		return c.ended()
	}
	select {
	case <-c.done:
		return true
	case <-time.After(lostConnectionWait):
		return false
	}
}

// ended reports whether the connection has ended.
func (c *conn) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// endReason says why an ended connection ended, with the last line of the
// server's stderr.
func (c *conn) endReason() string {
	reason := "connection closed"
	if tail := lastLines(string(c.stderr.Bytes()), 1); tail != "" {
		reason += "; stderr: " + tail
	}
	return reason
}

// close ends the session. A stdio server's stdin is closed; it gets
// TerminateDuration to exit, then its whole process group is killed. close
// is safe to call more than once and concurrently. Closing a connection
// that had already ended is not an error.
func (c *conn) close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		if c.session != nil {
			wasDown := c.ended()
			err := c.session.Close()
			if err != nil && c.kind != TypeStdio {
				// The session is gone either way; an HTTP server that cannot
				// take the DELETE is not the caller's problem.
				c.logger.Debug("MCP session close", "error", err)
				err = nil
			}
			if err != nil && !wasDown && !isExitNoise(err) {
				c.closeErr = fmt.Errorf("close MCP server '%s': %w", c.name, err)
			}
			<-c.done
		}
		if c.child != nil {
			if err := c.child.Close(); err != nil && c.closeErr == nil {
				c.closeErr = fmt.Errorf("close MCP server '%s': %w", c.name, err)
			}
			c.child.killGroup(syscall.SIGKILL)
		}
		if c.cancel != nil {
			c.cancel()
		}
		closeIdle(c.http)
	})
	return c.closeErr
}

// kill ends a connection that is stuck (a failed health probe): its
// requests are abandoned and a stdio server's whole process group is killed
// at once, without the grace period of close, then the connection is
// closed.
func (c *conn) kill() {
	if c.cancel != nil {
		c.cancel()
	}
	if c.child != nil {
		c.child.killGroup(syscall.SIGKILL)
	}
	_ = c.close()
}

// isExitNoise reports errors that only say the child was stopped the way
// close stops it.
func isExitNoise(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) || errors.Is(err, io.EOF) || errors.Is(err, exec.ErrWaitDelay) ||
		errors.Is(err, sdk.ErrConnectionClosed)
}

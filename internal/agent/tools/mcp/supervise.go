package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Events of a [State].
const (
	// EventStarted: the server started (the first State of a supervised
	// server).
	EventStarted = "started"
	// EventDown: the connection ended, or a health probe got no answer.
	EventDown = "down"
	// EventRestarted: a restart attempt succeeded; the server is up.
	EventRestarted = "restarted"
	// EventRestartFailed: a restart attempt failed; another follows after
	// State.Retry.
	EventRestartFailed = "restart_failed"
)

// State is a supervised server's condition, as Options.OnState is told it
// at each change.
type State struct {
	// Server is the configured name.
	Server string
	// Event is what changed: one of the Event constants.
	Event string
	// Up reports whether the server is connected.
	Up bool
	// Attempt counts the restart attempts since the server last went down.
	Attempt int
	// Restarts counts the successful restarts since Start.
	Restarts int
	// Err says why the server is down: how its connection ended, the
	// failed probe, or the last failed attempt.
	Err string
	// Retry is the wait before the next attempt, while down.
	Retry time.Duration
}

// why tells a caller why the server is down and what happens next.
func (st State) why() string {
	if st.Attempt == 0 {
		return st.Err + "; restarting now"
	}
	next := "now"
	if st.Retry > 0 {
		next = "in " + st.Retry.String()
	}
	return fmt.Sprintf("restart attempt %d failed: %s; next attempt %s", st.Attempt, st.Err, next)
}

// restartBackoff is the original's schedule of waits between restart
// attempts of a shared server; the last one repeats.
var restartBackoff = []time.Duration{0, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute}

// DefaultBackoff is the wait before restart attempt n: 0, 1, 2, 5, 10 and
// 30 seconds, then a minute for every later attempt.
func DefaultBackoff(attempt int) time.Duration {
	return restartBackoff[min(max(attempt, 0), len(restartBackoff)-1)]
}

// DefaultProbeTimeout bounds a health probe, as in the original.
const DefaultProbeTimeout = 3 * time.Second

// Health probes of `healthProbe`.
const (
	ProbePing      = "ping"
	ProbeListTools = "listTools"
)

// probeFailure is a connection whose probe got no answer.
type probeFailure struct {
	c   *conn
	err error
}

// notify tells Options.OnState.
func (s *Server) notify(st State) {
	if s.opts.OnState != nil {
		s.opts.OnState(st)
	}
}

// setState records st and tells Options.OnState; it is called by the
// supervisor only, so the states are told in order.
func (s *Server) setState(update func(*State)) {
	s.mu.Lock()
	update(&s.state)
	st := s.state
	s.mu.Unlock()
	s.notify(st)
}

// supervise watches the connection c and replaces it when it ends or a
// probe finds it stuck, until Close.
func (s *Server) supervise(c *conn) {
	defer s.tasks.Done()
	for {
		var reason string
		select {
		case <-s.life.Done():
			return
		case <-c.done:
			reason = c.endReason()
		case f := <-s.kick:
			if f.c != c {
				continue // a probe of a connection already replaced
			}
			reason = "health probe failed: " + f.err.Error()
			c.kill()
		}
		s.mu.Lock()
		s.trying = make(chan struct{}) // calls from now on wait for attempt 0
		s.mu.Unlock()
		s.logger.Error("MCP server down; restarting it", "reason", reason)
		s.setState(func(st *State) { *st = State{Server: s.name, Event: EventDown, Restarts: st.Restarts, Err: reason} })
		_ = c.close()
		if c = s.restart(); c == nil {
			return
		}
	}
}

// restart tries to bring the server back, waiting Backoff(n) before
// attempt n, until an attempt succeeds (the new connection) or Close (nil).
// s.trying is open during each attempt, and during the start of the first
// one when it has no wait.
func (s *Server) restart() *conn {
	defer s.endTry()
	for attempt := 0; ; attempt++ {
		if d := s.backoff(attempt); d > 0 {
			s.endTry()
			s.logger.Warn("MCP server restart: waiting", "attempt", attempt+1, "wait", d)
			if err := s.wait(s.life, d); err != nil {
				return nil
			}
		}
		s.mu.Lock()
		if s.trying == nil {
			s.trying = make(chan struct{})
		}
		s.mu.Unlock()
		c, err := dial(s.life, s.kind, s.cfg, s.opts, s.logger)
		if s.life.Err() != nil {
			if c != nil {
				_ = c.close()
			}
			return nil
		}
		if err == nil {
			// The new connection is in place before the waiting calls go on.
			s.mu.Lock()
			s.cur = c
			s.state = State{Server: s.name, Event: EventRestarted, Up: true, Attempt: attempt + 1, Restarts: s.state.Restarts + 1}
			st := s.state
			s.mu.Unlock()
			s.endTry()
			s.logger.Warn("MCP server restarted", "attempt", attempt+1, "tools", len(c.list))
			s.notify(st)
			return c
		}
		s.logger.Error("MCP server restart failed", "attempt", attempt+1, "error", err, "next_in", s.backoff(attempt+1))
		s.setState(func(st *State) {
			st.Event, st.Attempt, st.Err, st.Retry = EventRestartFailed, attempt+1, err.Error(), s.backoff(attempt+1)
		})
		s.endTry()
	}
}

// endTry ends the window in which calls wait for a restart attempt.
func (s *Server) endTry() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trying != nil {
		close(s.trying)
		s.trying = nil
	}
}

func (s *Server) backoff(attempt int) time.Duration {
	if s.opts.Backoff != nil {
		return s.opts.Backoff(attempt)
	}
	return DefaultBackoff(attempt)
}

func (s *Server) wait(ctx context.Context, d time.Duration) error {
	if s.opts.Wait != nil {
		return s.opts.Wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ready returns the current connection. While a restart attempt runs it
// first waits for the attempt's end, within ctx.
func (s *Server) ready(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	for s.trying != nil {
		ch := s.trying
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for MCP server '%s' to restart: %w", s.name, ctx.Err())
		}
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	return s.cur, nil
}

// suspect probes a supervised server's health after a call on c timed out
// or failed without the server's own answer; a probe that gets no answer
// has the supervisor restart it. One probe runs at a time.
func (s *Server) suspect(c *conn) {
	if !s.opts.Supervise || !s.probing.CompareAndSwap(false, true) {
		return
	}
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		defer s.probing.Store(false)
		err := s.probe(c)
		if err == nil {
			s.logger.Debug("MCP server health probe answered")
			return
		}
		if s.life.Err() != nil {
			return
		}
		s.logger.Error("MCP server health probe failed", "error", err)
		select {
		case s.kick <- probeFailure{c: c, err: err}:
		default:
		}
	}()
}

// probe asks the server for a sign of life, as the original does: a ping,
// or a tools/list with `healthProbe: listTools`, within ProbeTimeout. An
// error the server answered with (a ping it does not know) is a sign of
// life too.
func (s *Server) probe(c *conn) error {
	timeout := s.opts.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	ctx, cancel := context.WithTimeout(s.life, timeout)
	defer cancel()
	var err error
	if s.cfg.HealthProbe == ProbeListTools {
		_, err = c.session.ListTools(ctx, nil)
	} else {
		err = c.session.Ping(ctx, nil)
	}
	if err == nil || answered(err) {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer to %s within %s", probeName(s.cfg.HealthProbe), timeout)
	}
	return err
}

func probeName(p string) string {
	if p == ProbeListTools {
		return "tools/list"
	}
	return "ping"
}

// normalizeProbe reads `healthProbe`: listTools (in any case) or ping,
// the default for anything else.
func normalizeProbe(v any) string {
	if p, ok := v.(string); ok && strings.EqualFold(strings.TrimSpace(p), ProbeListTools) {
		return ProbeListTools
	}
	return ProbePing
}

// Codes the SDK gives its own failures to reach a server, which are not the
// server's answers: a request the transport could not deliver, a client
// closing, a server closing.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// answered reports whether err is the server's own error answer to a
// request (a sign of life), rather than a failure to reach it.
func answered(err error) bool {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case codeClientClosing, codeServerClosing, codeRejected:
		return false
	}
	return true
}

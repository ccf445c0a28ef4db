package headend

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/httpguard"
)

// limiter bounds the sessions of one headend: Concurrency slots, and a
// wait queue of at most queue requests, each waiting at most timeout.
type limiter struct {
	slots   chan struct{}
	timeout time.Duration
	closing <-chan struct{}

	mu      sync.Mutex
	queue   int
	waiting int
}

func newLimiter(concurrency, queue int, timeout time.Duration, closing <-chan struct{}) *limiter {
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	if queue <= 0 {
		queue = 4 * concurrency
	}
	return &limiter{slots: make(chan struct{}, concurrency), queue: queue, timeout: timeout, closing: closing}
}

// acquire takes a slot, waiting in the queue when none is free. It fails
// with ErrBusy (queue full), ErrQueueTimeout, ErrShuttingDown or the
// context's error.
func (l *limiter) acquire(ctx context.Context) (func(), error) {
	release := func() { <-l.slots }
	select {
	case <-l.closing:
		return nil, ErrShuttingDown
	default:
	}
	select {
	case l.slots <- struct{}{}:
		return release, nil
	default:
	}
	l.mu.Lock()
	if l.waiting >= l.queue {
		l.mu.Unlock()
		return nil, ErrBusy
	}
	l.waiting++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
	}()
	t := time.NewTimer(l.timeout)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, ErrQueueTimeout
	case <-l.closing:
		return nil, ErrShuttingDown
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// server is the shared state of every headend of one Serve call.
type server struct {
	opts   Options
	agents map[string]*Agent
	// closing is closed when shutdown begins: no new sessions.
	closing chan struct{}
	// drained is closed once the running sessions have ended (or been
	// cancelled) at shutdown: connections the HTTP server no longer owns
	// (MCP over WebSocket) close then.
	drained chan struct{}
	// hard is cancelled when the grace period ends: running sessions are
	// cancelled.
	hard       context.Context
	hardCancel context.CancelFunc
	running    atomic.Int64
	// transcripts writes the embed profiles' transcripts, one at a time.
	transcripts transcripts
}

// run runs one session of a: ctx (the client's) and the shutdown grace
// both cancel it. A setup error becomes a failed result.
func (s *server) run(ctx context.Context, a *Agent, req Request) (res contract.AIAgentResult) {
	s.running.Add(1)
	defer s.running.Add(-1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.hard, cancel)
	defer stop()
	defer func() {
		if r := recover(); r != nil {
			res = contract.AIAgentResult{Error: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	s.opts.Logger.Info("session start", "headend", req.Headend, "agent", a.Name, "request", req.ID)
	start := time.Now()
	res, err := a.Run(ctx, req)
	if err != nil {
		res = contract.AIAgentResult{Error: err.Error()}
	}
	if !res.Success && s.hard.Err() != nil {
		res.Error = fmt.Sprintf("%v: %s", ErrCancelled, res.Error)
	}
	s.opts.Logger.Info("session end", "headend", req.Headend, "agent", a.Name, "request", req.ID,
		"success", res.Success, "ms", time.Since(start).Milliseconds())
	return res
}

func newRequestID() string { return uuid.NewString() }

// httpHeadend is one listening HTTP headend.
type httpHeadend struct {
	kind string
	srv  *http.Server
	ln   net.Listener
}

// Serve starts the headends and serves until ctx is cancelled (SIGINT or
// SIGTERM in the CLI) or MCP over stdio reaches the end of its input. It
// then stops taking requests, lets running sessions finish for the grace
// period, cancels the rest, and returns nil. A headend that cannot start
// is an error and starts nothing.
func Serve(ctx context.Context, opts Options, specs []Spec) error {
	opts.withDefaults()
	agents, err := opts.validate()
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return fmt.Errorf("%w: no headend given", ErrSpec)
	}
	if _, err := opts.CheckListen(specs); err != nil {
		return err
	}
	s := &server{opts: opts, agents: agents, closing: make(chan struct{}), drained: make(chan struct{})}
	s.hard, s.hardCancel = context.WithCancel(context.Background())
	defer s.hardCancel()

	var https []*httpHeadend
	var slacks []*slackHeadend
	var stdio *mcpHeadend
	closeAll := func() {
		for _, h := range https {
			_ = h.ln.Close()
		}
	}
	for _, sp := range specs {
		lim := newLimiter(sp.Concurrency, sp.Queue, opts.QueueTimeout, s.closing)
		var h http.Handler
		g := guard()
		var guardFor func(*http.Request) httpguard.Guard
		switch {
		case sp.Kind == KindOpenAI:
			h = s.openAIHandler(lim)
		case sp.Kind == KindAnthropic:
			h = s.anthropicHandler(lim)
		case sp.Kind == KindAPI:
			h = s.apiHandler(lim)
		case sp.Kind == KindMCP && sp.Transport == "stdio":
			if stdio != nil {
				closeAll()
				return fmt.Errorf("%w: --mcp stdio given twice", ErrSpec)
			}
			if opts.Stdin == nil || opts.Stdout == nil {
				closeAll()
				return fmt.Errorf("%w: --mcp stdio needs stdin and stdout", ErrSpec)
			}
			stdio = s.newMCP(lim)
			continue
		case sp.Kind == KindMCP:
			h = s.mcpHTTPHandler(s.newMCP(lim), sp.Transport)
		case sp.Kind == KindSlack:
			sl, err := s.newSlack(ctx, sp, lim)
			if err != nil {
				closeAll()
				return err
			}
			slacks = append(slacks, sl)
			continue
		case sp.Kind == KindEmbed:
			if h, guardFor, err = s.embedHandler(sp, lim); err != nil {
				closeAll()
				return err
			}
		default:
			closeAll()
			return fmt.Errorf("%w: unknown headend %q", ErrSpec, sp.Kind)
		}
		ln, err := net.Listen("tcp", listenAddr(opts.ListenAddress, sp.Port))
		if err != nil {
			closeAll()
			return fmt.Errorf("headend %s: listen: %w", sp.Kind, err)
		}
		kind := sp.Kind
		if sp.Kind == KindMCP {
			kind += ":" + sp.Transport
		}
		if sp.Kind == KindEmbed && sp.Profile != "default" {
			kind += ":" + sp.Profile
		}
		srv := s.guardedServer(h, g)
		if guardFor != nil {
			srv = s.guardedServerFor(h, guardFor)
		}
		https = append(https, &httpHeadend{kind: kind, ln: ln, srv: srv})
	}

	errc := make(chan error, len(https)+1)
	for _, h := range https {
		opts.Logger.Info("headend listening", "headend", h.kind, "addr", h.ln.Addr().String())
		if opts.Ready != nil {
			opts.Ready(h.kind, h.ln.Addr().String())
		}
		go func(h *httpHeadend) {
			if err := h.srv.Serve(h.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("headend %s: %w", h.kind, err)
			}
		}(h)
	}
	slackCtx, slackStop := context.WithCancel(context.Background())
	defer slackStop()
	var slackWG sync.WaitGroup
	for _, sl := range slacks {
		sl.ready = func() {
			if opts.Ready != nil {
				opts.Ready(KindSlack, "socket mode, team "+sl.me.Team)
			}
		}
		slackWG.Add(1)
		go func() { defer slackWG.Done(); sl.serve(slackCtx) }()
	}
	stdioDone := make(chan struct{})
	stdioCtx, stdioStop := context.WithCancel(context.Background())
	defer stdioStop()
	if stdio != nil {
		if opts.Ready != nil {
			opts.Ready(KindMCP+":stdio", "stdio")
		}
		go func() {
			defer close(stdioDone)
			if err := stdio.serveStdio(stdioCtx, opts.Stdin, opts.Stdout); err != nil && stdioCtx.Err() == nil {
				opts.Logger.Warn("mcp stdio ended", "error", err)
			}
		}()
	}

	var serveErr error
	select {
	case <-ctx.Done():
		opts.Logger.Info("shutting down", "grace", opts.Grace.String())
	case <-stdioDone:
		opts.Logger.Info("mcp stdio input closed; shutting down")
	case serveErr = <-errc:
	}
	slackStop()
	s.shutdown(https)
	slackWG.Wait()
	for _, sl := range slacks {
		// The answers of the last sessions go out (each call is bounded).
		sl.wg.Wait()
	}
	if stdio != nil {
		// Let the last stdio answers go out before the connection closes.
		select {
		case <-stdioDone:
		case <-time.After(200 * time.Millisecond):
		}
	}
	stdioStop()
	if stdio != nil {
		select {
		case <-stdioDone:
		case <-time.After(5 * time.Second):
		}
	}
	return serveErr
}

// shutdown stops taking requests, waits for running sessions up to the
// grace period, cancels the rest and closes every server.
func (s *server) shutdown(https []*httpHeadend) {
	close(s.closing)
	if s.opts.Stopping != nil {
		s.opts.Stopping()
	}
	shutCtx, cancelShut := context.WithCancel(context.Background())
	defer cancelShut()
	var wg sync.WaitGroup
	for _, h := range https {
		wg.Add(1)
		go func(h *httpHeadend) {
			defer wg.Done()
			_ = h.srv.Shutdown(shutCtx)
		}(h)
	}
	if !s.waitIdle(s.opts.Grace) {
		s.opts.Logger.Warn("grace period over; cancelling running sessions", "sessions", s.running.Load())
		s.hardCancel()
		// Cancelled sessions end promptly and answer their clients.
		s.waitIdle(5 * time.Second)
	}
	close(s.drained)
	// Let handlers write their last responses, then close what is left
	// (idle keep-alive and MCP event streams).
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	cancelShut()
	for _, h := range https {
		_ = h.srv.Close()
	}
}

// waitIdle waits until no session runs, at most d; it reports whether
// none does.
func (s *server) waitIdle(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for s.running.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

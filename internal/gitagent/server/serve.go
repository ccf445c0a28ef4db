package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
)

// Server answers one request: it reads an ActionRequest, runs it with
// Runner, and writes one ActionResponse. Every log record it makes carries
// request_id, plan_id, task_id and correlation_id (null when absent).
type Server struct {
	// Runner runs the git commands; nil means a zero Runner. Its Logger is
	// replaced by the server's per-request logger.
	Runner *Runner
	// Register, when set, runs once per request, alongside the git action,
	// with the request's logger. It reports its own failures in the log:
	// registration never changes the response.
	Register func(ctx context.Context, log *slog.Logger)
	// Log receives the JSON log records; nil discards them.
	Log io.Writer
	// Refuse, when not empty, says why the agent itself was started wrongly
	// (a bad command-line flag, say): every request is then answered with
	// an error response of kind "invalid_invocation" carrying this text.
	Refuse string
}

// Serve reads the request from in (at most [MaxRequestBytes] of it),
// handles it and writes the response to out. The returned error is non-nil
// only when no response could be written; every problem with the request or
// with git is an error response instead. A panic inside the handling
// becomes an error response of kind "internal".
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	data, readErr := io.ReadAll(io.LimitReader(in, MaxRequestBytes+1))
	resp := s.Handle(ctx, data, readErr)
	return WriteResponse(out, resp)
}

// Handle turns the raw request (and the error, if any, met reading it) into
// a response. It never panics.
func (s *Server) Handle(ctx context.Context, data []byte, readErr error) (resp contract.ActionResponse) {
	start := time.Now()
	logOut := s.Log
	if logOut == nil {
		logOut = io.Discard
	}
	log := traceLogger(slog.New(slog.NewJSONHandler(logOut, nil)), Trace{})
	var wg sync.WaitGroup
	defer func() {
		if r := recover(); r != nil {
			log.Error("internal error", slog.Any("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
			resp = ErrorResponse(sniffTrace(data), KindInternal, fmt.Sprintf("internal error: %v", r))
		}
		wg.Wait()
		log.Info("response", slog.String("status", resp.Status), slog.Int64("duration_ms", time.Since(start).Milliseconds()))
	}()

	req, rerr := Decode(data)
	if readErr != nil {
		rerr = &RequestError{Trace: sniffTrace(data), Kind: KindInvalidRequest, Msg: fmt.Sprintf("read stdin: %v", readErr)}
	}
	if s.Refuse != "" {
		tr := sniffTrace(data)
		if req != nil {
			tr = req.Trace
		}
		rerr = &RequestError{Trace: tr, Kind: KindInvalidInvocation, Msg: s.Refuse}
	}
	tr := Trace{}
	if rerr != nil {
		tr = rerr.Trace
	} else {
		tr = req.Trace
	}
	log = traceLogger(slog.New(slog.NewJSONHandler(logOut, nil)), tr)
	if s.Register != nil {
		wg.Add(1)
		go s.register(ctx, log, &wg)
	}
	if rerr != nil {
		log.Warn("request refused", slog.String("error_kind", rerr.Kind), slog.String("error", rerr.Msg))
		return ErrorResponse(rerr.Trace, rerr.Kind, rerr.Msg)
	}
	log.Info("request", slog.String("action", req.Action), slog.String("shape", req.Shape))
	runner := Runner{}
	if s.Runner != nil {
		runner = *s.Runner
	}
	runner.Logger = log
	return Respond(req.Trace, runner.Execute(ctx, req))
}

// register runs s.Register, keeping a panic in it from ending the process.
func (s *Server) register(ctx context.Context, log *slog.Logger, wg *sync.WaitGroup) {
	defer wg.Done()
	defer func() {
		if r := recover(); r != nil {
			log.Error("registry registration panicked", slog.Any("panic", fmt.Sprint(r)))
		}
	}()
	s.Register(ctx, log)
}

// traceLogger adds the trace fields to every record of base.
func traceLogger(base *slog.Logger, tr Trace) *slog.Logger {
	opt := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	var id any
	if tr.RequestID != "" {
		id = tr.RequestID
	}
	return base.With(
		slog.String("component", contract.ToolGitAgent),
		slog.Any("request_id", id),
		slog.Any("plan_id", opt(tr.PlanID)),
		slog.Any("task_id", opt(tr.TaskID)),
		slog.Any("correlation_id", opt(tr.CorrelationID)),
	)
}

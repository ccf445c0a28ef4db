package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
)

func TestDefaultBackoff(t *testing.T) {
	for attempt, want := range map[int]time.Duration{
		-1: 0, 0: 0, 1: time.Second, 2: 2 * time.Second, 3: 5 * time.Second, 4: 10 * time.Second,
		5: 30 * time.Second, 6: time.Minute, 7: time.Minute, 1000: time.Minute,
	} {
		if got := DefaultBackoff(attempt); got != want {
			t.Errorf("DefaultBackoff(%d) = %s, want %s", attempt, got, want)
		}
	}
}

// states collects a supervised server's states, in order.
type states chan State

func (ch states) record(st State) { ch <- st }

// next waits for the next state and checks its event.
func (ch states) next(t *testing.T, event string) State {
	t.Helper()
	select {
	case st := <-ch:
		if st.Event != event {
			t.Fatalf("state %+v, want event %s", st, event)
		}
		return st
	case <-time.After(failAfter):
		t.Fatalf("no %s state within %s", event, failAfter)
		return State{}
	}
}

// none checks that no state came.
func (ch states) none(t *testing.T) {
	t.Helper()
	select {
	case st := <-ch:
		t.Fatalf("unexpected state %+v", st)
	default:
	}
}

// startSupervised starts cfg supervised, with its states recorded, and
// checks the first one.
func startSupervised(t *testing.T, cfg ServerConfig, opts Options) (*Server, states) {
	t.Helper()
	ch := make(states, 64)
	opts.Supervise, opts.OnState = true, ch.record
	s, err := Start(context.Background(), cfg, opts)
	if err != nil {
		t.Fatalf("Start(%s): %v", cfg.Name, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if st := ch.next(t, EventStarted); !st.Up || st.Server != cfg.Name {
		t.Fatalf("first state %+v", st)
	}
	return s, ch
}

func (s *Server) pid() int { return s.conn().child.cmd.Process.Pid }

// TestSupervisedRestartsAfterKill: a stdio server killed from outside is
// restarted at once, twice, and the next call after each restart succeeds.
func TestSupervisedRestartsAfterKill(t *testing.T) {
	s, ch := startSupervised(t, helperConfig("t", "1"), Options{})
	for i := 1; i <= 2; i++ {
		pid := s.pid()
		if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if st := ch.next(t, EventDown); st.Up || !strings.Contains(st.Err, "connection closed") {
			t.Fatalf("down state %+v", st)
		}
		if st := ch.next(t, EventRestarted); !st.Up || st.Restarts != i || st.Attempt != 1 {
			t.Fatalf("restart %d: state %+v", i, st)
		}
		if got := call(t, s, "t__echo", `{"text":"after kill"}`); got.Text != "after kill" {
			t.Fatalf("echo after restart %d = %+v", i, got)
		}
		if s.pid() == pid {
			t.Fatalf("restart %d kept pid %d", i, pid)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if kids := children(t, os.Getpid()); len(kids) != 0 {
		t.Fatalf("children left after Close: %v", kids)
	}
}

// TestSupervisedCrashMidCall: the call that crashes the server fails; the
// one after the restart succeeds.
func TestSupervisedCrashMidCall(t *testing.T) {
	s, ch := startSupervised(t, helperConfig("t", "1"), Options{})
	if _, err := s.Call(context.Background(), "t__crash", json.RawMessage(`{}`)); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("crash call error = %v", err)
	}
	ch.next(t, EventDown)
	ch.next(t, EventRestarted)
	if got := call(t, s, "t__echo", `{"text":"back"}`); got.Text != "back" {
		t.Fatalf("echo = %+v", got)
	}
}

// gate is an Options.Wait that reports each wait and returns when the test
// releases it.
type gate struct {
	waits   chan time.Duration
	release chan struct{}
}

func newGate() *gate { return &gate{waits: make(chan time.Duration), release: make(chan struct{})} }

func (g *gate) wait(ctx context.Context, d time.Duration) error {
	select {
	case g.waits <- d:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) next(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-g.waits:
		return d
	case <-time.After(failAfter):
		t.Fatalf("no restart wait within %s", failAfter)
		return 0
	}
}

// startUnrestartable starts a supervised server that serves only while
// flag exists, with its waits on g; then it removes flag, kills the server
// and checks that it went down.
func startUnrestartable(t *testing.T) (s *Server, ch states, g *gate, flag string) {
	t.Helper()
	flag = filepath.Join(t.TempDir(), "up")
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g = newGate()
	s, ch = startSupervised(t, helperConfig("t", "while:"+flag), Options{Wait: g.wait})
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-s.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ch.next(t, EventDown)
	return s, ch, g, flag
}

// TestSupervisedBackoff: a server that cannot come back is tried at once,
// then after 1, 2, 5, 10, 30 and 60 seconds, then every 60; meanwhile each
// call fails at once saying it is down, why, and when it is tried next.
// Once it can start again, the next attempt brings it back.
func TestSupervisedBackoff(t *testing.T) {
	s, ch, g, flag := startUnrestartable(t)
	want := []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, time.Minute}
	for i, d := range want {
		st := ch.next(t, EventRestartFailed)
		if st.Up || st.Attempt != i+1 || st.Retry != d || !strings.Contains(st.Err, "refusing to start") {
			t.Fatalf("attempt %d: state %+v, want a failure with a retry in %s", i+1, st, d)
		}
		if got := g.next(t); got != d {
			t.Fatalf("wait before attempt %d = %s, want %s", i+2, got, d)
		}
		_, err := s.Call(context.Background(), "t__echo", json.RawMessage(`{"text":"x"}`))
		for _, part := range []string{"MCP server 't' is down", "restart attempt " + itoa(i+1) + " failed", "refusing to start", "next attempt in " + d.String()} {
			if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), part) {
				t.Fatalf("call while down: %v; want ErrNotRunning saying %q", err, part)
			}
		}
		if i == len(want)-1 {
			if err := os.WriteFile(flag, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g.release <- struct{}{}
	}
	if st := ch.next(t, EventRestarted); !st.Up || st.Attempt != len(want)+1 || st.Restarts != 1 {
		t.Fatalf("restarted state %+v", st)
	}
	if got := call(t, s, "t__echo", `{"text":"up again"}`); got.Text != "up again" {
		t.Fatalf("echo = %+v", got)
	}
}

// TestCloseStopsRestarts: Close during a wait between attempts returns at
// once and leaves nothing running.
func TestCloseStopsRestarts(t *testing.T) {
	s, ch, g, _ := startUnrestartable(t)
	ch.next(t, EventRestartFailed)
	g.next(t)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ch.none(t)
	if kids := children(t, os.Getpid()); len(kids) != 0 {
		t.Fatalf("children left after Close: %v", kids)
	}
}

// TestSupervisedProbeRestartsHungServer: a call past requestTimeoutMs
// fails as a timeout; the server, alive but answering nothing, fails its
// health probe and is killed and restarted.
func TestSupervisedProbeRestartsHungServer(t *testing.T) {
	cfg := helperConfig("t", "1")
	cfg.RequestTimeout = 300 * time.Millisecond
	s, ch := startSupervised(t, cfg, Options{ProbeTimeout: 300 * time.Millisecond})
	pid := s.pid()
	_, err := s.Call(context.Background(), "t__freeze", json.RawMessage(`{}`))
	if !errors.Is(err, tools.ErrTimeout) || !strings.Contains(err.Error(), "requestTimeoutMs 300") {
		t.Fatalf("call past requestTimeoutMs: %v, want a timeout naming it", err)
	}
	if st := ch.next(t, EventDown); !strings.Contains(st.Err, "health probe failed: no answer to ping within 300ms") {
		t.Fatalf("down state %+v", st)
	}
	ch.next(t, EventRestarted)
	if got := call(t, s, "t__echo", `{"text":"thawed"}`); got.Text != "thawed" {
		t.Fatalf("echo = %+v", got)
	}
	eventually(t, "the hung server is gone", func() bool { return !alive(pid) })
}

// logTap is a slog handler that sends every message on a channel.
type logTap chan string

func (l logTap) Enabled(context.Context, slog.Level) bool      { return true }
func (l logTap) Handle(_ context.Context, r slog.Record) error { l <- r.Message; return nil }
func (l logTap) WithAttrs([]slog.Attr) slog.Handler            { return l }
func (l logTap) WithGroup(string) slog.Handler                 { return l }

// TestProbeAnsweredKeepsServer: a call past requestTimeoutMs on a server
// that still answers (the tool is merely slow) leaves the server running.
func TestProbeAnsweredKeepsServer(t *testing.T) {
	cfg := helperConfig("t", "1")
	cfg.RequestTimeout = 100 * time.Millisecond
	logs := make(logTap, 256)
	s, ch := startSupervised(t, cfg, Options{Logger: slog.New(logs)})
	pid := s.pid()
	if _, err := s.Call(context.Background(), "t__slow", json.RawMessage(`{"ms":600000}`)); !errors.Is(err, tools.ErrTimeout) {
		t.Fatalf("slow call: %v, want a timeout", err)
	}
	for msg := ""; msg != "MCP server health probe answered"; {
		select {
		case msg = <-logs:
		case <-time.After(failAfter):
			t.Fatal("the health probe never ended")
		}
	}
	ch.none(t)
	if got := call(t, s, "t__echo", `{"text":"same"}`); got.Text != "same" || s.pid() != pid {
		t.Fatalf("echo = %+v, pid %d (was %d)", got, s.pid(), pid)
	}
}

// TestSupervisedHTTPReconnects: a streamable HTTP server that goes away is
// reconnected once it is back at its address.
func TestSupervisedHTTPReconnects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve := func(ln net.Listener) *httptest.Server {
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcptest.HTTPHandler(mcptest.Options{}))
		srv := httptest.NewUnstartedServer(mux)
		srv.Listener = ln
		srv.Start()
		return srv
	}
	srv := serve(ln)
	g := newGate()
	s, ch := startSupervised(t, ServerConfig{Name: "web", URL: srv.URL + "/mcp"}, Options{Wait: g.wait, ProbeTimeout: time.Second})
	addr := ln.Addr().String()
	srv.CloseClientConnections()
	srv.Close()
	if _, err := s.Call(context.Background(), "web__echo", json.RawMessage(`{"text":"gone"}`)); err == nil {
		t.Fatal("a call to the stopped server succeeded")
	}
	ch.next(t, EventDown)
	ch.next(t, EventRestartFailed)
	g.next(t)
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	srv2 := serve(ln2)
	defer srv2.Close()
	g.release <- struct{}{}
	ch.next(t, EventRestarted)
	if got := call(t, s, "web__echo", `{"text":"back"}`); got.Text != "back" {
		t.Fatalf("echo = %+v", got)
	}
}

// TestSupervisedEverythingServer: the reference server, killed, is
// restarted and answers again.
func TestSupervisedEverythingServer(t *testing.T) {
	entry := refServer(t, "server-everything")
	s, ch := startSupervised(t, ServerConfig{Name: "ev", Command: "node", Args: []string{entry, "stdio"}}, Options{})
	if err := syscall.Kill(-s.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ch.next(t, EventDown)
	ch.next(t, EventRestarted)
	if got := call(t, s, "ev__echo", `{"message":"again"}`); !strings.Contains(got.Text, "again") {
		t.Fatalf("echo = %+v", got)
	}
}

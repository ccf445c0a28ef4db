package mcp

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
)

// wsPeer is a local MCP server over WebSocket (mcptest's, through package
// mcpws): the headers of each handshake, and a switch that drops every
// socket.
type wsPeer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	headers []http.Header
	stop    chan struct{}
}

func newWSPeer(t *testing.T, ln net.Listener) *wsPeer {
	t.Helper()
	p := &wsPeer{stop: make(chan struct{})}
	h := mcptest.WebSocketHandler(mcptest.Options{}, func(h http.Header) {
		p.mu.Lock()
		p.headers = append(p.headers, h)
		p.mu.Unlock()
	}, p.stop)
	p.srv = httptest.NewUnstartedServer(h)
	if ln != nil {
		p.srv.Listener = ln
	}
	p.srv.Start()
	t.Cleanup(p.close)
	return p
}

func (p *wsPeer) url() string { return "ws" + strings.TrimPrefix(p.srv.URL, "http") + "/ws" }

// close drops the sockets and stops listening.
func (p *wsPeer) close() {
	p.mu.Lock()
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	p.mu.Unlock()
	p.srv.Close()
}

func (p *wsPeer) header(i int) http.Header {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i >= len(p.headers) {
		return nil
	}
	return p.headers[i]
}

// TestWebSocketServer: a websocket server's tools are listed and called
// over one socket, its configured headers (expanded) go with the
// handshake along with the "mcp" subprotocol, and results past
// websocket's default frame limit arrive whole.
func TestWebSocketServer(t *testing.T) {
	peer := newWSPeer(t, nil)
	cfg := ServerConfig{Name: "ws", Type: TypeWebSocket, URL: peer.url(), Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
	s, err := Start(context.Background(), cfg, Options{Expand: func(v string) string { return strings.ReplaceAll(v, "${TOKEN}", "tok-9") }})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	names := map[string]bool{}
	for _, tl := range s.Tools() {
		names[tl.Name] = true
	}
	if !names["ws__echo"] || !names["ws__huge"] {
		t.Fatalf("tools %v lack ws__echo and ws__huge", names)
	}
	h := peer.header(0)
	if got := h.Get("Authorization"); got != "Bearer tok-9" {
		t.Errorf("handshake Authorization = %q", got)
	}
	if got := h.Get("Sec-WebSocket-Protocol"); got != "mcp" {
		t.Errorf("handshake subprotocols = %q, want mcp", got)
	}
	tests := []struct {
		tool, args string
		want       string
		wantLen    int
		wantError  bool
	}{
		{tool: "ws__echo", args: `{"text":"over the socket"}`, want: "over the socket"},
		{tool: "ws__huge", args: `{"bytes":300000}`, wantLen: 300000},
		{tool: "ws__fail", args: `{"message":"no"}`, want: "no", wantError: true},
	}
	for _, tt := range tests {
		got := call(t, s, tt.tool, tt.args)
		if got.IsError != tt.wantError {
			t.Errorf("%s: IsError = %v", tt.tool, got.IsError)
		}
		if tt.wantLen > 0 {
			if len(got.Text) != tt.wantLen {
				t.Errorf("%s: len = %d, want %d", tt.tool, len(got.Text), tt.wantLen)
			}
			continue
		}
		if got.Text != tt.want {
			t.Errorf("%s: %q, want %q", tt.tool, got.Text, tt.want)
		}
	}
}

// TestWebSocketServerGone: a dropped socket makes the next call fail with
// the server named, at once.
func TestWebSocketServerGone(t *testing.T) {
	peer := newWSPeer(t, nil)
	s := startT(t, ServerConfig{Name: "ws", Type: TypeWebSocket, URL: peer.url()})
	if got := call(t, s, "ws__echo", `{"text":"up"}`); got.Text != "up" {
		t.Fatalf("echo = %+v", got)
	}
	peer.close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.Call(ctx, "ws__echo", json.RawMessage(`{"text":"down"}`))
	if err == nil || !strings.Contains(err.Error(), "MCP server is not running") || !strings.Contains(err.Error(), "'ws'") {
		t.Fatalf("call to a gone server: %v", err)
	}
}

// TestSupervisedWebSocketReconnects: a supervised websocket server whose
// socket drops is dialled again, with the backoff, until it answers.
func TestSupervisedWebSocketReconnects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	peer := newWSPeer(t, ln)
	g := newGate()
	s, ch := startSupervised(t, ServerConfig{Name: "ws", Type: TypeWebSocket, URL: peer.url()}, Options{Wait: g.wait, ProbeTimeout: time.Second})
	peer.close()
	ch.next(t, EventDown)
	ch.next(t, EventRestartFailed)
	g.next(t)
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	newWSPeer(t, ln2)
	g.release <- struct{}{}
	ch.next(t, EventRestarted)
	if got := call(t, s, "ws__echo", `{"text":"back"}`); got.Text != "back" {
		t.Fatalf("echo = %+v", got)
	}
}

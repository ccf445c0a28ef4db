package mcpws

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// peer accepts one socket, sends frame (of typ) and reports what the
// client then sent.
func peer(t *testing.T, typ websocket.MessageType, frame []byte) (string, <-chan string) {
	t.Helper()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := Accept(w, r)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx := r.Context()
		if err := ws.Write(ctx, typ, frame); err != nil {
			return
		}
		mt, data, err := ws.Read(ctx)
		if err != nil {
			got <- "closed: " + websocket.CloseStatus(err).String()
			return
		}
		got <- mt.String() + " " + string(data)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http"), got
}

// TestFrames: one JSON-RPC message per text frame is read; anything else
// ends the connection.
func TestFrames(t *testing.T) {
	tests := []struct {
		name    string
		typ     websocket.MessageType
		frame   string
		wantErr string
	}{
		{"a request", websocket.MessageText, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, ""},
		{"a binary frame", websocket.MessageBinary, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "binary frame"},
		{"not JSON-RPC", websocket.MessageText, `{"hello":1}`, "not a JSON-RPC message"},
		{"two messages in one frame", websocket.MessageText, `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, "not a JSON-RPC message"},
		{"over the read limit", websocket.MessageText, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2048) + `"}}`, "read limited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, got := peer(t, tt.typ, []byte(tt.frame))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := (&Client{URL: url, ReadLimit: 1024}).Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			msg, err := c.Read(ctx)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Read = %v, %v; want an error with %q", msg, err, tt.wantErr)
				}
				if err := c.Write(ctx, &jsonrpc.Request{Method: "after"}); err == nil {
					t.Fatal("Write after a bad frame succeeded")
				}
				return
			}
			if req, ok := msg.(*jsonrpc.Request); err != nil || !ok || req.Method != "ping" {
				t.Fatalf("Read = %#v, %v", msg, err)
			}
			id, _ := jsonrpc.MakeID(float64(1))
			if err := c.Write(ctx, &jsonrpc.Response{ID: id, Result: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			if s := <-got; s != `MessageText {"jsonrpc":"2.0","id":1,"result":{}}` {
				t.Fatalf("the peer got %s", s)
			}
		})
	}
}

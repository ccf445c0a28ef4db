// Package mcpws carries MCP's JSON-RPC messages over a WebSocket, one
// message per text frame, as the MCP TypeScript SDK's WebSocket transport
// and the original ai-agent do. It gives the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) a client transport ([Client])
// and a server-side one over an accepted socket ([Server]); both offer or
// select the "mcp" subprotocol.
//
// A frame that is not one JSON-RPC message, a binary frame and a frame
// larger than the read limit end the connection: a peer that breaks the
// framing once cannot be trusted to be in step afterwards.
package mcpws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subprotocol is the WebSocket subprotocol of MCP, which the TypeScript
// SDK's client asks for.
const Subprotocol = "mcp"

// DefaultReadLimit bounds one incoming message (a tool result can be
// large); websocket's own default of 32 KiB is far too small for MCP.
const DefaultReadLimit = 32 << 20

// Client is a transport that dials a WebSocket MCP server. Its zero value
// is not usable: URL is required.
type Client struct {
	// URL is the server's ws:// or wss:// address (http:// and https://
	// are accepted too).
	URL string
	// Header is sent with the opening handshake (authorization).
	Header http.Header
	// HTTPClient performs the handshake; nil means http.DefaultClient.
	HTTPClient *http.Client
	// ReadLimit bounds one incoming message; zero means DefaultReadLimit.
	ReadLimit int64
	// OnFrame, when set, sees every incoming text frame before it is
	// decoded. It must not keep the slice.
	OnFrame func([]byte)
}

var _ sdk.Transport = (*Client)(nil)

// Connect dials the server; ctx bounds the handshake only.
func (c *Client) Connect(ctx context.Context) (sdk.Connection, error) {
	ws, resp, err := websocket.Dial(ctx, c.URL, &websocket.DialOptions{
		HTTPClient: c.HTTPClient, HTTPHeader: c.Header, Subprotocols: []string{Subprotocol},
	})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("websocket dial: %w", err)
	}
	return newConn(ws, c.ReadLimit, c.OnFrame), nil
}

// Server is a transport over a socket a server accepted (see [Accept]).
type Server struct {
	Conn *websocket.Conn
	// ReadLimit bounds one incoming message; zero means DefaultReadLimit.
	ReadLimit int64
}

var _ sdk.Transport = (*Server)(nil)

// Connect wraps the accepted socket.
func (s *Server) Connect(context.Context) (sdk.Connection, error) {
	if s.Conn == nil {
		return nil, errors.New("mcpws: no socket")
	}
	return newConn(s.Conn, s.ReadLimit, nil), nil
}

// Accept upgrades an HTTP request to a WebSocket, selecting the "mcp"
// subprotocol when the client offers it. The Origin check of
// github.com/coder/websocket stays on: a page of another origin cannot
// open the socket.
func Accept(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error) {
	return websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}})
}

// conn is one MCP connection over a socket.
type conn struct {
	ws      *websocket.Conn
	onFrame func([]byte)
	// life ends the reads and writes when the connection closes.
	life   context.Context
	cancel context.CancelFunc
	once   sync.Once
}

func newConn(ws *websocket.Conn, limit int64, onFrame func([]byte)) *conn {
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	ws.SetReadLimit(limit)
	life, cancel := context.WithCancel(context.Background())
	return &conn{ws: ws, onFrame: onFrame, life: life, cancel: cancel}
}

// Read returns the next message. Any failure closes the connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	ctx, stop := c.bound(ctx)
	defer stop()
	typ, data, err := c.ws.Read(ctx)
	if err != nil {
		return nil, c.fail(err)
	}
	if typ != websocket.MessageText {
		return nil, c.fail(errors.New("mcpws: binary frame"))
	}
	if c.onFrame != nil {
		c.onFrame(data)
	}
	if !json.Valid(data) {
		return nil, c.fail(errors.New("mcpws: frame is not a JSON-RPC message: not one JSON value"))
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, c.fail(fmt.Errorf("mcpws: frame is not a JSON-RPC message: %w", err))
	}
	return msg, nil
}

// Write sends msg as one text frame; websocket serialises concurrent
// writers.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcpws: encode: %w", err)
	}
	ctx, stop := c.bound(ctx)
	defer stop()
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		return c.fail(err)
	}
	return nil
}

// bound ends ctx when the connection closes too.
func (c *conn) bound(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// fail closes the connection and returns why it ended: sdk's
// ErrConnectionClosed once closed (by either side), the cause otherwise.
func (c *conn) fail(err error) error {
	_ = c.Close()
	if c.life.Err() != nil || websocket.CloseStatus(err) != -1 {
		return fmt.Errorf("%w: %v", sdk.ErrConnectionClosed, err)
	}
	return err
}

// Close sends a normal closure and releases the socket; it is safe to call
// more than once and concurrently. A peer that is already gone is not an
// error: the connection is closed either way.
func (c *conn) Close() error {
	c.once.Do(func() {
		_ = c.ws.Close(websocket.StatusNormalClosure, "")
		c.cancel()
	})
	return nil
}

// SessionID is empty: a socket has no MCP session id of its own.
func (c *conn) SessionID() string { return "" }

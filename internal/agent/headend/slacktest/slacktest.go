// Package slacktest is a local stand-in for Slack, for tests of the Slack
// headend: it speaks Slack's documented Web API shapes (auth.test,
// apps.connections.open, chat.postMessage, chat.update,
// conversations.replies, conversations.history, conversations.info) over
// HTTP and Socket Mode's envelopes over a WebSocket. A test sends events
// and disconnects through it and waits for the calls the headend makes.
// Like Slack, it refuses a message whose blocks break Block Kit's
// documented limits (invalid_blocks).
package slacktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// The identity the server gives the bot, and the tokens it accepts.
const (
	BotToken  = "xoxb-slacktest-bot"
	AppToken  = "xapp-slacktest-app"
	BotUserID = "UBOT"
	BotID     = "BBOT"
	TeamID    = "T0TEST"
)

// Call is one Web API call the server answered: its method and arguments
// (form values, or the JSON body's members); Refused is the error code of
// a call answered ok false.
type Call struct {
	Method  string
	Args    map[string]any
	Refused string
}

// Blocks returns the call's blocks, each as an object.
func (c Call) Blocks() []map[string]any {
	list, _ := c.Args["blocks"].([]any)
	var out []map[string]any
	for _, b := range list {
		m, _ := b.(map[string]any)
		out = append(out, m)
	}
	return out
}

// Str returns an argument as a string ("" when absent or not a string).
func (c Call) Str(name string) string {
	s, _ := c.Args[name].(string)
	return s
}

// Server is a local Slack. Its zero value is not usable; call New.
type Server struct {
	hs *httptest.Server

	mu      sync.Mutex
	changed chan struct{}
	calls   []Call
	conns   []*websocket.Conn
	opened  int
	acks    map[string]json.RawMessage
	threads map[string][]json.RawMessage
	names   map[string]string
	nextTS  int
	nextEnv int
}

// New starts a server; Close stops it.
func New() *Server {
	s := &Server{changed: make(chan struct{}), acks: map[string]json.RawMessage{},
		threads: map[string][]json.RawMessage{}, names: map[string]string{}, nextTS: 1700000000}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{method}", s.api)
	mux.HandleFunc("GET /socket", s.socket)
	s.hs = httptest.NewServer(mux)
	return s
}

// Close stops the server and closes every socket.
func (s *Server) Close() {
	s.mu.Lock()
	for _, c := range s.conns {
		_ = c.CloseNow()
	}
	s.mu.Unlock()
	s.hs.Close()
}

// APIURL is the Web API base URL, for slack.apiUrl.
func (s *Server) APIURL() string { return s.hs.URL + "/api/" }

// SetThread sets the messages conversations.replies returns for the
// thread ts of channel (parent first), or, with ts "", those
// conversations.history returns for the channel (newest first); each is a
// message object.
func (s *Server) SetThread(channel, ts string, msgs ...map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var raw []json.RawMessage
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		raw = append(raw, b)
	}
	s.threads[channel+"/"+ts] = raw
}

// SetChannelName sets the name conversations.info gives a channel.
func (s *Server) SetChannelName(channel, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names[channel] = name
}

// notifyLocked wakes every waiter.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// wait waits until cond (called under the lock) holds or ctx ends.
func (s *Server) wait(ctx context.Context, what string, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("slacktest: waiting for %s: %w", what, ctx.Err())
		}
	}
}

// Calls returns the calls of method so far ("" for all).
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitCall waits for a call of method that match accepts (nil accepts
// any) and returns it.
func (s *Server) WaitCall(ctx context.Context, method string, match func(Call) bool) (Call, error) {
	var found Call
	err := s.wait(ctx, "a "+method+" call", func() bool {
		for _, c := range s.calls {
			if c.Method == method && (match == nil || match(c)) {
				found = c
				return true
			}
		}
		return false
	})
	return found, err
}

// WaitConnections waits until n sockets have been opened in all.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.wait(ctx, strconv.Itoa(n)+" socket connections", func() bool { return s.opened >= n })
}

// Opened is the number of sockets opened so far.
func (s *Server) Opened() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened
}

// Send sends an envelope of type typ carrying payload on the newest
// socket and returns its envelope_id.
func (s *Server) Send(ctx context.Context, typ string, payload any) (string, error) {
	s.mu.Lock()
	s.nextEnv++
	id := fmt.Sprintf("env-%d", s.nextEnv)
	s.mu.Unlock()
	env := map[string]any{"envelope_id": id, "type": typ, "payload": payload,
		"accepts_response_payload": typ == "slash_commands", "retry_attempt": 0, "retry_reason": ""}
	return id, s.write(ctx, env)
}

// Event sends an events_api envelope for event and returns its
// envelope_id.
func (s *Server) Event(ctx context.Context, eventID string, event map[string]any) (string, error) {
	return s.Send(ctx, "events_api", map[string]any{"token": "verification", "team_id": TeamID, "api_app_id": "A0TEST",
		"event": event, "type": "event_callback", "event_id": eventID, "event_time": 1700000000})
}

// Disconnect sends a disconnect envelope with reason (warning,
// refresh_requested, link_disabled) on the newest socket.
func (s *Server) Disconnect(ctx context.Context, reason string) error {
	return s.write(ctx, map[string]any{"type": "disconnect", "reason": reason, "debug_info": map[string]any{"host": "slacktest"}})
}

// WaitAck waits for the ack of envelope id and returns its payload (nil
// when it carried none).
func (s *Server) WaitAck(ctx context.Context, id string) (json.RawMessage, error) {
	var p json.RawMessage
	err := s.wait(ctx, "the ack of "+id, func() bool {
		var ok bool
		p, ok = s.acks[id]
		return ok
	})
	return p, err
}

func (s *Server) write(ctx context.Context, v any) error {
	s.mu.Lock()
	if len(s.conns) == 0 {
		s.mu.Unlock()
		return errors.New("slacktest: no socket is open")
	}
	c := s.conns[len(s.conns)-1]
	s.mu.Unlock()
	b, _ := json.Marshal(v)
	return c.Write(ctx, websocket.MessageText, b)
}

// socket serves one Socket Mode connection: hello, then the acks.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("ticket") == "" {
		http.Error(w, "no ticket", http.StatusUnauthorized)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ctx := context.Background()
	hello := map[string]any{"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "slacktest", "build_number": 1, "approximate_connection_time": 3600},
		"connection_info": map[string]any{"app_id": "A0TEST"}}
	b, _ := json.Marshal(hello)
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.opened++
	s.notifyLocked()
	s.mu.Unlock()
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		return
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &ack) != nil || ack.EnvelopeID == "" {
			continue
		}
		s.mu.Lock()
		s.acks[ack.EnvelopeID] = ack.Payload
		s.notifyLocked()
		s.mu.Unlock()
	}
}

// api answers one Web API call.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	method := r.PathValue("method")
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	want := BotToken
	if method == "apps.connections.open" {
		want = AppToken
	}
	if token != want {
		writeJSON(w, map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	args := map[string]any{}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		if len(body) > 0 && json.Unmarshal(body, &args) != nil {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_json"})
			return
		}
	} else {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_form_data"})
			return
		}
		for k := range form {
			args[k] = form.Get(k)
		}
	}
	if method == "chat.postMessage" || method == "chat.update" {
		if err := checkMessage(args); err != "" {
			s.mu.Lock()
			s.calls = append(s.calls, Call{Method: method, Args: args, Refused: err})
			s.notifyLocked()
			s.mu.Unlock()
			writeJSON(w, map[string]any{"ok": false, "error": err})
			return
		}
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: method, Args: args})
	s.notifyLocked()
	var out map[string]any
	switch method {
	case "auth.test":
		out = map[string]any{"url": "https://slacktest.slack.com/", "team": "slacktest", "user": "bot",
			"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID, "is_enterprise_install": false}
	case "apps.connections.open":
		out = map[string]any{"url": "ws" + strings.TrimPrefix(s.hs.URL, "http") + "/socket?ticket=" + strconv.Itoa(len(s.calls))}
	case "chat.postMessage":
		s.nextTS++
		ts := fmt.Sprintf("%d.000100", s.nextTS)
		out = map[string]any{"channel": args["channel"], "ts": ts,
			"message": map[string]any{"type": "message", "subtype": "bot_message", "text": args["text"], "ts": ts, "bot_id": BotID}}
	case "chat.update":
		out = map[string]any{"channel": args["channel"], "ts": args["ts"], "text": args["text"], "message": map[string]any{"text": args["text"]}}
	case "conversations.replies":
		out = map[string]any{"messages": s.threads[fmt.Sprint(args["channel"])+"/"+fmt.Sprint(args["ts"])], "has_more": false}
	case "conversations.history":
		out = map[string]any{"messages": s.threads[fmt.Sprint(args["channel"])+"/"], "has_more": false}
	case "conversations.info":
		out = map[string]any{"channel": map[string]any{"id": args["channel"], "name": s.names[fmt.Sprint(args["channel"])], "is_member": true}}
	default:
		s.mu.Unlock()
		writeJSON(w, map[string]any{"ok": false, "error": "unknown_method"})
		return
	}
	s.mu.Unlock()
	if out["messages"] == nil && (method == "conversations.replies" || method == "conversations.history") {
		out["messages"] = []any{}
	}
	out["ok"] = true
	writeJSON(w, out)
}

// Slack's documented limits of a message's blocks
// (api.slack.com/reference/block-kit/blocks).
const (
	MaxBlocks      = 50
	MaxSectionText = 3000
	MaxHeaderText  = 150
	MaxFields      = 10
	MaxFieldText   = 2000
	MaxContext     = 10
	MaxMessageText = 40000
)

// checkMessage holds chat.postMessage and chat.update to Slack's rules:
// text or blocks, and blocks within the limits; it returns Slack's error
// code, "" when the message is valid.
func checkMessage(args map[string]any) string {
	text, _ := args["text"].(string)
	raw, has := args["blocks"]
	if utf16Len(text) > MaxMessageText {
		return "msg_too_long"
	}
	if !has || raw == nil {
		if text == "" {
			return "no_text"
		}
		return ""
	}
	blocks, ok := raw.([]any)
	if !ok || len(blocks) > MaxBlocks {
		return "invalid_blocks"
	}
	for _, b := range blocks {
		m, ok := b.(map[string]any)
		if !ok || !validBlock(m) {
			return "invalid_blocks"
		}
	}
	return ""
}

func validBlock(b map[string]any) bool {
	text := func(v any, limit int, plain bool) bool {
		o, ok := v.(map[string]any)
		if !ok {
			return false
		}
		s, _ := o["text"].(string)
		typ, _ := o["type"].(string)
		return s != "" && utf16Len(s) <= limit && (typ == "plain_text" || (!plain && typ == "mrkdwn"))
	}
	switch b["type"] {
	case "section":
		fields, _ := b["fields"].([]any)
		if len(fields) > MaxFields {
			return false
		}
		for _, f := range fields {
			if !text(f, MaxFieldText, false) {
				return false
			}
		}
		if _, has := b["text"]; !has {
			return len(fields) > 0
		}
		return text(b["text"], MaxSectionText, false)
	case "header":
		return text(b["text"], MaxHeaderText, true)
	case "context":
		els, _ := b["elements"].([]any)
		return len(els) > 0 && len(els) <= MaxContext
	case "divider", "actions", "image", "rich_text", "markdown", "input", "file", "video":
		return true
	}
	return false
}

// utf16Len counts characters as Slack does.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

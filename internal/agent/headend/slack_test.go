package headend

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/headend/slacktest"
	"github.com/salve-dev/salve/internal/testbuf"
)

func slackSpec(sl *slacktest.Server) Spec {
	return Spec{Kind: KindSlack, Slack: &SlackConfig{BotToken: slacktest.BotToken, AppToken: slacktest.AppToken,
		APIURL: sl.APIURL(), UpdateIntervalMs: 20}}
}

// TestSlackMentionInThread: a mention in a thread, after Slack asked the
// headend to reconnect, is acked, opened with a message in the thread,
// shown in progress and answered in place of the opener, with the thread
// as the session's context; a redelivery of the same event runs nothing.
func TestSlackMentionInThread(t *testing.T) {
	sl := slacktest.New()
	defer sl.Close()
	f := &fakeRun{block: make(chan struct{})}
	logs := &testbuf.Buffer{}
	opts := Options{Agents: agents(f), Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	start(t, opts, slackSpec(sl))
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()

	if err := sl.Disconnect(ctx, "refresh_requested"); err != nil {
		t.Fatal(err)
	}
	if err := sl.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	sl.SetThread("C1", "100.1",
		map[string]any{"type": "message", "user": "U1", "text": "the build broke on main", "ts": "100.1"},
		map[string]any{"type": "message", "user": "U1", "text": "<@UBOT> why did it break?", "ts": "100.5", "thread_ts": "100.1"})
	mention := map[string]any{"type": "app_mention", "user": "U1", "text": "<@UBOT> why did it break?", "ts": "100.5",
		"thread_ts": "100.1", "channel": "C1", "event_ts": "100.5"}
	env, err := sl.Event(ctx, "Ev1", mention)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sl.WaitAck(ctx, env); err != nil {
		t.Fatal(err)
	}
	opener, err := sl.WaitCall(ctx, "chat.postMessage", func(c slacktest.Call) bool { return c.Str("thread_ts") == "100.1" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool {
		blocks, _ := json.Marshal(c.Args["blocks"])
		return c.Str("text") == "why did it break?" && strings.Contains(string(blocks), `"action_id":"cancel_run"`)
	}); err != nil {
		t.Fatalf("%v\ncalls: %+v\nlog:\n%s", err, sl.Calls(""), logs.String())
	}
	// Slack redelivers an event it thinks was lost: it runs once.
	env2, err := sl.Event(ctx, "Ev1", mention)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sl.WaitAck(ctx, env2); err != nil {
		t.Fatal(err)
	}
	close(f.block)
	answer, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool { return strings.HasPrefix(c.Str("text"), "echo: ") })
	if err != nil {
		t.Fatal(err)
	}
	if answer.Str("channel") != "C1" || answer.Args["ts"] == nil || answer.Str("ts") == "" {
		t.Fatalf("answer %+v", answer.Args)
	}
	if blocks, ok := answer.Args["blocks"].([]any); !ok || len(blocks) != 1 || !strings.Contains(mustJSON(blocks[0]), `"type":"section"`) ||
		strings.Contains(mustJSON(blocks), "cancel_run") {
		t.Errorf("the answer is not one mrkdwn section in place of the progress blocks: %v", answer.Args["blocks"])
	}
	if _, err := sl.WaitCall(ctx, "chat.postMessage", func(c slacktest.Call) bool { return strings.Contains(c.Str("text"), "tokens →:30 ←:12") }); err != nil {
		t.Fatal(err)
	}
	_ = opener
	f.mu.Lock()
	text, format := f.requests[0].Prompt, f.requests[0].Format
	f.mu.Unlock()
	if format != "slack-block-kit" {
		t.Errorf("the session was asked for %q, want slack-block-kit", format)
	}
	for _, want := range []string{"## SLACK CONVERSATION CONTEXT", "the build broke on main", "## SLACK USER REQUEST TO ACT ON IT", "asked you:\nwhy did it break?"} {
		if !strings.Contains(text, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "<@UBOT> why") {
		t.Error("the bot's mention was not removed from the question")
	}
	f.mu.Lock()
	n := len(f.requests)
	f.mu.Unlock()
	if n != 1 {
		t.Errorf("%d sessions ran, want 1 (the redelivery must not run)", n)
	}
	if got := len(sl.Calls("conversations.replies")); got != 1 {
		t.Errorf("%d conversations.replies calls, want 1", got)
	}
	for _, secret := range []string{slacktest.BotToken, slacktest.AppToken, "ticket="} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log shows %q", secret)
		}
	}
}

// TestSlackDirectMessageAndCommand: a DM and a slash command are answered;
// the bot's own message is not.
func TestSlackDirectMessageAndCommand(t *testing.T) {
	sl := slacktest.New()
	defer sl.Close()
	f := &fakeRun{}
	start(t, Options{Agents: agents(f)}, slackSpec(sl))
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	if _, err := sl.Event(ctx, "Ev-own", map[string]any{"type": "message", "channel_type": "im", "channel": "D1", "user": slacktest.BotUserID, "text": "own", "ts": "5.1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sl.Event(ctx, "Ev-dm", map[string]any{"type": "message", "channel_type": "im", "channel": "D1", "user": "U2", "text": "hello there", "ts": "5.2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool {
		return c.Str("channel") == "D1" && strings.Contains(c.Str("text"), "hello there")
	}); err != nil {
		t.Fatal(err)
	}
	env, err := sl.Send(ctx, "slash_commands", map[string]any{"command": "/ai-agent", "text": "status please", "user_id": "U2", "channel_id": "C9", "team_id": slacktest.TeamID})
	if err != nil {
		t.Fatal(err)
	}
	ack, err := sl.WaitAck(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ack), "ephemeral") {
		t.Errorf("slash command ack payload %s", ack)
	}
	if _, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool {
		return c.Str("channel") == "C9" && strings.Contains(c.Str("text"), "status please")
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range sl.Calls("chat.update") {
		if strings.Contains(c.Str("text"), "own") && !strings.Contains(c.Str("text"), "known") {
			t.Errorf("the bot's own message was answered: %q", c.Str("text"))
		}
	}
}

// TestSlackStartErrors: bad tokens and a bad config stop Serve at start.
func TestSlackStartErrors(t *testing.T) {
	sl := slacktest.New()
	defer sl.Close()
	f := &fakeRun{}
	tests := []struct {
		name string
		cfg  SlackConfig
		want string
	}{
		{"no tokens", SlackConfig{APIURL: sl.APIURL()}, "missing botToken/appToken"},
		{"bad bot token", SlackConfig{BotToken: "xoxb-wrong", AppToken: slacktest.AppToken, APIURL: sl.APIURL()}, "auth.test: invalid_auth"},
		{"bad api url", SlackConfig{BotToken: "b", AppToken: "a", APIURL: "ftp://x"}, "slack.apiUrl"},
		{"unknown routed agent", SlackConfig{BotToken: slacktest.BotToken, AppToken: slacktest.AppToken, APIURL: sl.APIURL(),
			Routing: &SlackRouting{Rules: []SlackRoute{{Channels: []string{"C1"}, Agent: "nope.ai"}}}}, "not served"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			err := Serve(context.Background(), Options{Agents: agents(f)}, []Spec{{Kind: KindSlack, Slack: &cfg}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			for _, secret := range []string{"xoxb-wrong", slacktest.AppToken} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows a token: %v", err)
				}
			}
		})
	}
}

// TestSlackAskOf is the event filter's table.
func TestSlackAskOf(t *testing.T) {
	off := false
	h := &slackHeadend{me: slackIdentity{UserID: "UBOT", BotID: "BBOT"}}
	h.mention = mentionPattern(h.me.UserID)
	noDMs := &slackHeadend{me: h.me, mention: h.mention, cfg: SlackConfig{DMs: &off}}
	tests := []struct {
		name  string
		h     *slackHeadend
		event string
		text  string
		ok    bool
	}{
		{"mention", h, `{"type":"app_mention","user":"U1","text":"<@UBOT> hi","ts":"1.1","channel":"C1"}`, "hi", true},
		{"mention with label", h, `{"type":"app_mention","user":"U1","text":"hey <@UBOT|bot>  there","ts":"1.1","channel":"C1"}`, "hey   there", true},
		{"empty mention", h, `{"type":"app_mention","user":"U1","text":"<@UBOT>","ts":"1.1","channel":"C1"}`, "", false},
		{"dm", h, `{"type":"message","channel_type":"im","user":"U1","text":" yo ","ts":"1.1","channel":"D1"}`, "yo", true},
		{"dm off", noDMs, `{"type":"message","channel_type":"im","user":"U1","text":"yo","ts":"1.1","channel":"D1"}`, "", false},
		{"dm edit", h, `{"type":"message","subtype":"message_changed","channel_type":"im","user":"U1","text":"yo","ts":"1.1","channel":"D1"}`, "", false},
		{"other bot", h, `{"type":"message","channel_type":"im","user":"U3","bot_id":"B9","text":"yo","ts":"1.1","channel":"D1"}`, "", false},
		{"own bot", h, `{"type":"app_mention","user":"U5","bot_id":"BBOT","text":"<@UBOT> x","ts":"1.1","channel":"C1"}`, "", false},
		{"channel post", h, `{"type":"message","channel_type":"channel","user":"U1","text":"x","ts":"1.1","channel":"C1"}`, "x", true},
		{"private channel post", h, `{"type":"message","channel_type":"group","user":"U1","text":"x","ts":"1.1","channel":"G1"}`, "x", true},
		{"another app's post", h, `{"type":"message","subtype":"bot_message","channel_type":"channel","bot_id":"B7","attachments":[{"title":"Ticket 7","text":"disk full"}],"ts":"1.1","channel":"C1"}`, "disk full • Ticket 7", true},
		{"channel reply", h, `{"type":"message","channel_type":"channel","user":"U1","text":"x","ts":"1.2","thread_ts":"1.1","channel":"C1"}`, "", false},
		{"channel edit", h, `{"type":"message","subtype":"message_changed","channel_type":"channel","user":"U1","text":"x","ts":"1.1","channel":"C1"}`, "", false},
		{"channel post mentioning the bot", h, `{"type":"message","channel_type":"channel","user":"U1","text":"<@UBOT> x","ts":"1.1","channel":"C1"}`, "", false},
		{"own channel post", h, `{"type":"message","subtype":"bot_message","channel_type":"channel","bot_id":"BBOT","text":"x","ts":"1.1","channel":"C1"}`, "", false},
		{"no channel", h, `{"type":"app_mention","user":"U1","text":"<@UBOT> hi","ts":"1.1"}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ask, id, ok := tt.h.askOf([]byte(`{"event_id":"Ev9","event":` + tt.event + `}`))
			if ok != tt.ok || (ok && ask.text != tt.text) {
				t.Fatalf("got %+v %v, want %q %v", ask, ok, tt.text, tt.ok)
			}
			if id != "Ev9" {
				t.Errorf("event id %q", id)
			}
		})
	}
}

// FuzzSlackEvent: no events_api payload makes the filter panic, and an
// accepted question never carries the bot's mention or blank text.
func FuzzSlackEvent(f *testing.F) {
	f.Add([]byte(`{"event_id":"E","event":{"type":"app_mention","user":"U1","text":"<@UBOT> hi","ts":"1","channel":"C"}}`))
	f.Add([]byte(`{"event":{"type":"message","channel_type":"im","user":"U1","text":"x","ts":"1","channel":"D"}}`))
	f.Add([]byte(`{"event":null}`))
	h := &slackHeadend{me: slackIdentity{UserID: "UBOT", BotID: "BBOT"}}
	h.mention = mentionPattern(h.me.UserID)
	f.Fuzz(func(t *testing.T, payload []byte) {
		ask, _, ok := h.askOf(payload)
		if ok && (strings.TrimSpace(ask.text) == "" || strings.Contains(ask.text, "<@UBOT>") || ask.channel == "") {
			t.Fatalf("accepted %+v", ask)
		}
		_ = json.Valid(payload)
	})
}

// TestSlackAbortButton: the progress message's Abort button cancels the
// session, whose failure replaces the opener; link_disabled then stops
// the headend without reconnecting.
func TestSlackAbortButton(t *testing.T) {
	sl := slacktest.New()
	defer sl.Close()
	f := &fakeRun{block: make(chan struct{}), cancelled: make(chan string, 1)}
	logs := &testbuf.Buffer{}
	start(t, Options{Agents: agents(f), Logger: slog.New(slog.NewTextHandler(logs, nil))}, slackSpec(sl))
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	if _, err := sl.Event(ctx, "Ev1", map[string]any{"type": "app_mention", "user": "U1", "text": "<@UBOT> long job", "ts": "3.1", "channel": "C1"}); err != nil {
		t.Fatal(err)
	}
	var runID string
	if _, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool {
		blocks, _ := json.Marshal(c.Args["blocks"])
		var bs []struct {
			Elements []struct {
				ActionID string `json:"action_id"`
				Value    string `json:"value"`
			} `json:"elements"`
		}
		_ = json.Unmarshal(blocks, &bs)
		for _, b := range bs {
			for _, e := range b.Elements {
				if e.ActionID == "cancel_run" {
					runID = e.Value
				}
			}
		}
		return runID != ""
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := sl.Send(ctx, "interactive", map[string]any{"type": "block_actions", "user": map[string]any{"id": "U1"},
		"actions": []any{map[string]any{"action_id": "cancel_run", "value": runID}}}); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-f.cancelled:
		if id != runID {
			t.Errorf("cancelled %s, want %s", id, runID)
		}
	case <-ctx.Done():
		t.Fatal("the Abort button did not cancel the session")
	}
	if _, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool { return strings.HasPrefix(c.Str("text"), "❌ session cancelled") }); err != nil {
		t.Fatal(err)
	}
	if err := sl.Disconnect(ctx, "link_disabled"); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(logs.String(), "slack headend stopped") {
		select {
		case <-ctx.Done():
			t.Fatalf("link_disabled did not stop the headend:\n%s", logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if n := sl.Opened(); n != 1 {
		t.Errorf("%d connections after link_disabled, want 1", n)
	}
}

// FuzzSlackEnvelope: no Socket Mode frame panics its decoding, the event
// filter or the button handler, and a frame that is not an object is
// never taken for an event.
func FuzzSlackEnvelope(f *testing.F) {
	f.Add([]byte(`{"envelope_id":"e1","type":"events_api","payload":{"event_id":"E","event":{"type":"message","channel_type":"channel","user":"U1","text":"x","ts":"1","channel":"C"}}}`))
	f.Add([]byte(`{"envelope_id":"e2","type":"interactive","payload":{"type":"block_actions","actions":[{"action_id":"cancel_run","value":"r1"}]}}`))
	f.Add([]byte(`{"type":"disconnect","reason":"link_disabled"}`))
	f.Add([]byte(`[1,2]`))
	h := &slackHeadend{me: slackIdentity{UserID: "UBOT", BotID: "BBOT"}, runs: map[string]context.CancelFunc{}, s: fuzzServer(f)}
	h.mention = mentionPattern(h.me.UserID)
	f.Fuzz(func(t *testing.T, frame []byte) {
		var env slackEnvelope
		if json.Unmarshal(frame, &env) != nil {
			return
		}
		if ask, _, ok := h.askOf(env.Payload); ok && (ask.channel == "" || ask.ts == "" || strings.TrimSpace(ask.text) == "") {
			t.Fatalf("accepted %+v from %q", ask, frame)
		}
		h.onInteractive(env)
	})
}

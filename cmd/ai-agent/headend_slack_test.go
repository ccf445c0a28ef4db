package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/headend"
	"github.com/salve-dev/salve/internal/agent/headend/slacktest"
)

// TestHeadendSlackAndEmbed runs the binary with --slack and --embed over
// one agent whose model is a local LLM server. On Slack, a mention, after
// a reconnect, is answered in its thread by chat.update as Block Kit
// sections, and a root post in a channel that routing engages for
// channel-posts is answered in its thread; the local Slack refuses blocks
// past Block Kit's limits, and refuses none. On the embed headend, whose
// profile wants signed tokens and a dashboard's GUID, a chat without a
// token, with an expired token or without the GUID is refused, and a
// signed one is answered in its event stream and kept in the client's
// transcript. The Slack tokens and the embed secret come from the
// environment through ${VAR} and never reach stderr.
func TestHeadendSlackAndEmbed(t *testing.T) {
	srv := echoProvider(t, 0)
	sl := slacktest.New()
	defer sl.Close()
	sl.SetChannelName("C8", "support")
	dir := headendDir(t, srv)
	sessions := filepath.Join(dir, "sessions")
	cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k"}},
	  "persistence":{"sessionsDir":"` + sessions + `"},
	  "slack":{"botToken":"${SLACK_BOT_TOKEN}","appToken":"${SLACK_APP_TOKEN}","apiUrl":"` + sl.APIURL() + `","updateIntervalMs":50,
	    "routing":{"rules":[{"channels":["#support"],"engage":["channel-posts"]}]}},
	  "embed":{"support":{"allowedAgents":["chat"],"corsOrigins":["https://shop.example"],
	    "auth":{"signedTokens":{"enabled":true,"secret":"${EMBED_SECRET}","ttlSeconds":600},"tiers":{"agentDashboards":{"requireGuid":true}}}}}}`
	if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	const secret = "embed-secret-7f3a"
	env := []string{"SLACK_BOT_TOKEN=" + slacktest.BotToken, "SLACK_APP_TOKEN=" + slacktest.AppToken, "EMBED_SECRET=" + secret}
	p := startHeadend(t, dir, 2, env, "--agent", "chat.ai", "--tooling-transport", "native", "--slack", "--embed", "support:0", "--verbose")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if err := sl.Disconnect(ctx, "warning"); err != nil {
		t.Fatal(err)
	}
	if err := sl.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := sl.Event(ctx, "Ev1", map[string]any{"type": "app_mention", "user": "U1", "text": "<@UBOT> what is the build status?",
		"ts": "200.1", "channel": "C7", "event_ts": "200.1"}); err != nil {
		t.Fatal(err)
	}
	answer, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool { return strings.HasPrefix(c.Str("text"), "answer: ") })
	if err != nil {
		t.Fatalf("%v\ncalls %+v\nstderr:\n%s", err, sl.Calls("chat.update"), p.stderr.String())
	}
	if !strings.Contains(answer.Str("text"), "what is the build status?") || answer.Str("channel") != "C7" {
		t.Errorf("answer %+v", answer.Args)
	}
	opener := sl.Calls("chat.postMessage")[0]
	if opener.Str("thread_ts") != "200.1" || answer.Str("ts") == "" {
		t.Errorf("opener %+v, answer ts %q", opener.Args, answer.Str("ts"))
	}
	if bs := answer.Blocks(); len(bs) == 0 || bs[0]["type"] != "section" {
		t.Errorf("the answer is not Block Kit: %+v", answer.Args)
	}
	if _, err := sl.Event(ctx, "Ev2", map[string]any{"type": "message", "channel_type": "channel", "user": "U4", "text": "is the API down?",
		"ts": "300.1", "channel": "C8"}); err != nil {
		t.Fatal(err)
	}
	post, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool {
		return c.Str("channel") == "C8" && strings.HasPrefix(c.Str("text"), "answer: ")
	})
	if err != nil {
		t.Fatalf("%v\ncalls %+v", err, sl.Calls(""))
	}
	if !strings.Contains(post.Str("text"), "You are responding to a channel post.") || !strings.Contains(post.Str("text"), "Channel: support (C8)") {
		t.Errorf("channel post answered with %q", post.Str("text"))
	}
	for _, c := range sl.Calls("") {
		if c.Refused != "" {
			t.Errorf("Slack refused %s: %s", c.Method, c.Refused)
		}
	}

	chatURL := "http://" + p.addrs["embed:support"] + "/v1/chat"
	const guid, client = "0c7e3a3e-1111-4a2b-9c3d-0123456789ab", "5a1c0f2e-0000-4000-8000-00000000abcd"
	refused := []struct {
		name, token, guid, code string
	}{
		{"no token", "", guid, "invalid_token"},
		{"forged", headend.SignToken("other", time.Now()), guid, "invalid_token"},
		{"expired", headend.SignToken(secret, time.Now().Add(-11*time.Minute)), guid, "token_expired"},
		{"no guid", headend.SignToken(secret, time.Now()), "", "missing_guid"},
	}
	for _, r := range refused {
		req, _ := http.NewRequest("POST", chatURL, strings.NewReader(`{"message":"hello widget"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+r.token)
		if r.guid != "" {
			req.Header.Set(headend.GUIDHeader, r.guid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !strings.Contains(string(b), `"error":"`+r.code+`"`) {
			t.Errorf("%s: %d %s", r.name, resp.StatusCode, b)
		}
	}
	req, _ := http.NewRequest("POST", chatURL, strings.NewReader(`{"message":"hello widget","clientId":"`+client+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+headend.SignToken(secret, time.Now()))
	req.Header.Set(headend.GUIDHeader, guid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var report, done string
	sc := bufio.NewScanner(resp.Body)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			switch event {
			case "report":
				var d struct{ Chunk string }
				_ = json.Unmarshal([]byte(v), &d)
				report += d.Chunk
			case "done":
				done = v
			}
		}
	}
	if report != "answer: hello widget" || !strings.Contains(done, `"success":true`) {
		t.Errorf("embed report %q, done %s", report, done)
	}
	tr, err := headend.ReadTranscript(sessions, client)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	if len(tr.Turns) != 1 || len(tr.Turns[0].Entries) < 2 || tr.Turns[0].Entries[0] != (headend.TranscriptEntry{Role: "user", Content: "hello widget"}) ||
		tr.Turns[0].Entries[len(tr.Turns[0].Entries)-1] != (headend.TranscriptEntry{Role: "assistant", Content: "answer: hello widget"}) {
		t.Errorf("transcript %+v", tr)
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	if strings.Contains(p.stderr.String(), "section=slack") || strings.Contains(p.stderr.String(), "section=embed") {
		t.Error("--verbose calls the slack or embed section ignored")
	}
	for _, leak := range []string{slacktest.BotToken, slacktest.AppToken, "ticket=", secret} {
		if strings.Contains(p.stderr.String(), leak) {
			t.Errorf("stderr shows %q", leak)
		}
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/headend/slacktest"
)

// TestHeadendSlackAndEmbed runs the binary with --slack and --embed over
// one agent whose model is a local LLM server: a Slack mention, after a
// reconnect, is answered in its thread by chat.update, and a question
// posted to the embed headend is answered in its event stream. The Slack
// tokens come from the environment through ${VAR} and never reach stderr.
func TestHeadendSlackAndEmbed(t *testing.T) {
	srv := echoProvider(t, 0)
	sl := slacktest.New()
	defer sl.Close()
	dir := headendDir(t, srv)
	cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k"}},
	  "slack":{"botToken":"${SLACK_BOT_TOKEN}","appToken":"${SLACK_APP_TOKEN}","apiUrl":"` + sl.APIURL() + `","updateIntervalMs":50},
	  "embed":{"support":{"allowedAgents":["chat"],"corsOrigins":["https://shop.example"]}}}`
	if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"SLACK_BOT_TOKEN=" + slacktest.BotToken, "SLACK_APP_TOKEN=" + slacktest.AppToken}
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

	resp, err := http.Post("http://"+p.addrs["embed:support"]+"/v1/chat", "application/json", strings.NewReader(`{"message":"hello widget"}`))
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
	if code := p.stop(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	if strings.Contains(p.stderr.String(), "section=slack") || strings.Contains(p.stderr.String(), "section=embed") {
		t.Error("--verbose calls the slack or embed section ignored")
	}
	for _, secret := range []string{slacktest.BotToken, slacktest.AppToken, "ticket="} {
		if strings.Contains(p.stderr.String(), secret) {
			t.Errorf("stderr shows %q", secret)
		}
	}
}

package headend

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/headend/slacktest"
)

// TestEscapeMrkdwn: &, < and > are escaped, Slack's own control sequences
// and entities are kept.
func TestEscapeMrkdwn(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"},
		{"<script>x</script>", "&lt;script&gt;x&lt;/script&gt;"},
		{"hi <@U123> and <#C9|general>", "hi <@U123> and <#C9|general>"},
		{"<!here> <!subteam^S1|ops> <!date^1392734382^{date}|Feb 18>", "<!here> <!subteam^S1|ops> <!date^1392734382^{date}|Feb 18>"},
		{"see <https://x.example/a?b=1&amp;c=2|docs>", "see <https://x.example/a?b=1&amp;c=2|docs>"},
		{"<https://x.example with space>", "&lt;https://x.example with space&gt;"},
		{"already &amp; &lt;ok&gt; &nbsp;", "already &amp; &lt;ok&gt; &amp;nbsp;"},
		{"<@U1", "&lt;@U1"},
	}
	for _, tt := range tests {
		if got := escapeMrkdwn(tt.in); got != tt.want {
			t.Errorf("escapeMrkdwn(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestToMrkdwn: markdown's headings, bold, strike-through and links take
// mrkdwn's forms; code blocks are only escaped.
func TestToMrkdwn(t *testing.T) {
	in := "# Build status\n**red** on ~~main~~, see [the log](https://ci.example/1?a=1&b=2)\n```\nif a < b && **c** {}\n```\n"
	want := "*Build status*\n*red* on ~main~, see <https://ci.example/1?a=1&amp;b=2|the log>\n```\nif a &lt; b &amp;&amp; **c** {}\n```"
	if got := toMrkdwn(in); got != want {
		t.Errorf("toMrkdwn:\n%s\nwant\n%s", got, want)
	}
}

// TestSplitMrkdwn is the table of long answers cut for sections: every
// piece fits, lines stay whole where they can, a cut code block is closed
// and reopened, and no entity is cut.
func TestSplitMrkdwn(t *testing.T) {
	line := strings.Repeat("x", 99)
	lines := strings.Repeat(line+"\n", 100)
	code := "```\n" + lines + "```"
	long := strings.Repeat("word ", 1000)
	amps := strings.Repeat("&amp;", 1000)
	emoji := strings.Repeat("😀", 2000)
	tests := []struct {
		name   string
		in     string
		pieces int
	}{
		{"short", "hello", 1},
		{"empty", "  ", 0},
		{"many lines", strings.TrimSpace(lines), 4},
		{"code block", code, 4},
		{"one long line of words", long, 2},
		{"entities", amps, 2},
		{"emoji count twice", emoji, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitMrkdwn(tt.in, slackSectionMax)
			if len(got) != tt.pieces {
				t.Fatalf("%d pieces, want %d", len(got), tt.pieces)
			}
			joined := ""
			for i, p := range got {
				if utf16Len(p) > slackSectionMax || strings.TrimSpace(p) == "" {
					t.Fatalf("piece %d has %d characters", i, utf16Len(p))
				}
				if strings.Count(p, "```")%2 != 0 {
					t.Errorf("piece %d leaves a code block open", i)
				}
				if strings.Contains(tt.in, "&amp;") && (strings.HasSuffix(p, "&") || strings.HasSuffix(p, "&am") || strings.HasPrefix(p, "mp;")) {
					t.Errorf("piece %d cuts an entity", i)
				}
				joined += p
			}
			if tt.name == "many lines" && strings.Count(joined, line) != 100 {
				t.Error("a line was cut or lost")
			}
			if tt.name == "one long line of words" && strings.ReplaceAll(strings.Join(got, ""), " ", "") != strings.ReplaceAll(long, " ", "") {
				t.Error("words were lost")
			}
		})
	}
}

// FuzzSlackAnswer: whatever messages a model returns, the blocks the
// headend sends keep Slack's limits, and no message is empty of blocks
// unless every block was dropped.
func FuzzSlackAnswer(f *testing.F) {
	f.Add(`[{"blocks":[{"type":"section","text":{"type":"mrkdwn","text":"hi <b> & <@U1>"}}]}]`)
	f.Add(`[{"blocks":[{"type":"header","text":{"type":"plain_text","text":"` + strings.Repeat("h", 200) + `"}},{"type":"section","fields":[{"type":"mrkdwn","text":""}]}]}]`)
	f.Add(`[{"blocks":[{"type":"context","elements":[1,2,{"type":"mrkdwn","text":"a"}]}]},{"blocks":null},7]`)
	f.Add(`[{"blocks":[` + strings.Repeat(`{"type":"divider"},`, 60) + `{"type":"divider"}]}]`)
	f.Fuzz(func(t *testing.T, msgs string) {
		var raw []json.RawMessage
		if json.Unmarshal([]byte(msgs), &raw) != nil {
			return
		}
		rep := &contract.FinalReport{Format: "slack-block-kit", Messages: raw}
		for _, p := range slackAnswer(contract.AIAgentResult{Success: true, FinalReport: rep}) {
			b, _ := json.Marshal(map[string]any{"text": p.Text, "blocks": p.Blocks})
			var args map[string]any
			_ = json.Unmarshal(b, &args)
			if len(p.Blocks) > slackBlocksMax {
				t.Fatalf("%d blocks", len(p.Blocks))
			}
			for _, blk := range p.Blocks {
				m, _ := blk.(map[string]any)
				if m["type"] == "section" || m["type"] == "header" {
					if !validSlackText(m) {
						t.Fatalf("block breaks Slack's limits: %v", m)
					}
				}
			}
		}
	})
}

// validSlackText is the text rule of a section or header.
func validSlackText(m map[string]any) bool {
	limit := slackSectionMax
	if m["type"] == "header" {
		limit = slackHeaderMax
	}
	to, ok := m["text"].(map[string]any)
	if !ok {
		return m["type"] == "section" && m["fields"] != nil
	}
	s, _ := to["text"].(string)
	return s != "" && utf16Len(s) <= limit
}

// TestSlackBlockKitAnswers runs two sessions against the local Slack,
// which refuses blocks beyond Block Kit's limits as Slack does: a
// Block Kit report of 61 blocks with a long section and an oversized
// header, and a long markdown answer. Each replaces the opener with its
// first message and continues in the thread, every call accepted.
func TestSlackBlockKitAnswers(t *testing.T) {
	sl := slacktest.New()
	defer sl.Close()
	big := strings.Repeat("The disk on db-1 is full & <growing>. ", 200) // about 7600 characters
	var blocks []any
	blocks = append(blocks, map[string]any{"type": "header", "text": map[string]any{"type": "plain_text", "text": strings.Repeat("H", 200)}})
	blocks = append(blocks, map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": big}})
	for range 59 {
		blocks = append(blocks, map[string]any{"type": "divider"})
	}
	kit, _ := json.Marshal(map[string]any{"blocks": blocks})
	markdown := "## Findings\n" + strings.Repeat("- **item** with a [link](https://x.example/?a=1&b=2)\n", 150)
	run := func(ctx context.Context, req Request) (contract.AIAgentResult, error) {
		rep := &contract.FinalReport{Status: contract.ReportSuccess, Format: req.Format}
		if strings.Contains(req.Prompt, "kit please") {
			rep.Messages = []json.RawMessage{kit}
		} else {
			rep.Format = "markdown"
			rep.Content = &markdown
		}
		return contract.AIAgentResult{Success: true, FinalReport: rep}, nil
	}
	start(t, Options{Agents: []Agent{{Name: "chat", Run: run}}}, slackSpec(sl))
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()

	// The Block Kit report: 64 blocks once the section, escaped (9600
	// characters), is split in four and the header clipped; 50 replace
	// the opener, 14 follow in the thread.
	if _, err := sl.Event(ctx, "Ev1", map[string]any{"type": "app_mention", "user": "U1", "text": "<@UBOT> kit please", "ts": "9.1", "channel": "C1"}); err != nil {
		t.Fatal(err)
	}
	first, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool { return c.Str("channel") == "C1" && len(c.Blocks()) == slackBlocksMax })
	if err != nil {
		t.Fatalf("%v\n%+v", err, sl.Calls(""))
	}
	rest, err := sl.WaitCall(ctx, "chat.postMessage", func(c slacktest.Call) bool { return c.Str("thread_ts") == "9.1" && len(c.Blocks()) == 14 })
	if err != nil {
		t.Fatalf("%v\n%+v", err, sl.Calls("chat.postMessage"))
	}
	bs := first.Blocks()
	if h := bs[0]["text"].(map[string]any)["text"].(string); len([]rune(h)) != slackHeaderMax {
		t.Errorf("header of %d characters", len([]rune(h)))
	}
	var sections strings.Builder
	for _, b := range bs[1:5] {
		if b["type"] != "section" {
			t.Fatalf("block %v, want the split section", b)
		}
		sections.WriteString(b["text"].(map[string]any)["text"].(string))
	}
	if got := sections.String(); strings.Contains(got, "<growing>") || strings.Count(got, "&lt;growing&gt;") != 200 || strings.Count(got, "&amp;") != 200 {
		t.Errorf("the section was not escaped whole: %d escaped of 200", strings.Count(got, "&lt;growing&gt;"))
	}
	if rest.Str("text") == "" {
		t.Error("the thread message has no notification text")
	}

	// The markdown answer: mrkdwn sections of at most 3000 characters.
	if _, err := sl.Event(ctx, "Ev2", map[string]any{"type": "message", "channel_type": "im", "user": "U2", "text": "markdown please", "ts": "9.5", "channel": "D1"}); err != nil {
		t.Fatal(err)
	}
	md, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool {
		return c.Str("channel") == "D1" && strings.HasPrefix(c.Str("text"), "*Findings*")
	})
	if err != nil {
		t.Fatalf("%v\n%+v", err, sl.Calls("chat.update"))
	}
	if n := len(md.Blocks()); n < 3 {
		t.Errorf("a markdown answer of %d characters in %d sections", len(markdown), n)
	}
	if text := md.Blocks()[0]["text"].(map[string]any)["text"].(string); !strings.Contains(text, "- *item* with a <https://x.example/?a=1&amp;b=2|link>\n") {
		t.Errorf("not in mrkdwn: %.200s", text)
	}
	for _, c := range sl.Calls("") {
		if c.Refused != "" {
			t.Errorf("Slack refused %s: %s", c.Method, c.Refused)
		}
	}
}

// TestSlackChannelPosts: a root post in a channel that a rule engages for
// channel-posts is answered in its thread with the channel-post prompt
// (no conversation context); the router answers no channel post the
// routing does not engage.
func TestSlackChannelPosts(t *testing.T) {
	sl := slacktest.New()
	defer sl.Close()
	sl.SetChannelName("C5", "support")
	f := &fakeRun{}
	spec := slackSpec(sl)
	spec.Slack.Routing = &SlackRouting{Rules: []SlackRoute{{Channels: []string{"#support"}, Engage: []string{"channel-posts"},
		PromptTemplates: map[string]string{"channelPost": "Post in #{channel.name} by {user.id}: {text}"}}}}
	start(t, Options{Agents: agents(f)}, spec)
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	if _, err := sl.Event(ctx, "Ev1", map[string]any{"type": "message", "channel_type": "channel", "user": "U3", "text": "is the API down?", "ts": "50.1", "channel": "C5"}); err != nil {
		t.Fatal(err)
	}
	opener, err := sl.WaitCall(ctx, "chat.postMessage", func(c slacktest.Call) bool { return c.Str("channel") == "C5" })
	if err != nil {
		t.Fatal(err)
	}
	if opener.Str("thread_ts") != "50.1" {
		t.Errorf("opener not in the post's thread: %+v", opener.Args)
	}
	if _, err := sl.WaitCall(ctx, "chat.update", func(c slacktest.Call) bool {
		return c.Str("channel") == "C5" && c.Str("text") == "echo: Post in #support by U3: is the API down?"
	}); err != nil {
		t.Fatalf("%v\n%+v", err, sl.Calls("chat.update"))
	}
	if n := len(sl.Calls("conversations.history")) + len(sl.Calls("conversations.replies")); n != 0 {
		t.Errorf("a channel post read %d conversations for context", n)
	}

	// The router: what engages a channel post, and what does not.
	a := agents(f)
	tests := []struct {
		name    string
		routing *SlackRouting
		id, ch  string
		want    bool
	}{
		{"no routing", nil, "C1", "general", false},
		{"default without channel-posts", &SlackRouting{Default: &SlackRoute{Engage: []string{"mentions"}}}, "C1", "general", false},
		{"default with channel-posts", &SlackRouting{Default: &SlackRoute{Engage: []string{"channel-posts"}}}, "C1", "general", true},
		{"rule without engage covers posts", &SlackRouting{Rules: []SlackRoute{{Channels: []string{"C1"}}}}, "C1", "general", true},
		{"rule for mentions only", &SlackRouting{Rules: []SlackRoute{{Channels: []string{"C1"}, Engage: []string{"mentions"}}}}, "C1", "general", false},
		{"rule of another channel", &SlackRouting{Rules: []SlackRoute{{Channels: []string{"#ops"}}}}, "C1", "general", false},
		{"denied", &SlackRouting{Default: &SlackRoute{Engage: []string{"channel-posts"}}, Deny: []SlackRoute{{Channels: []string{"gen*"}}}}, "C1", "general", false},
	}
	for _, tt := range tests {
		rt, err := compileRouting(tt.routing, a)
		if err != nil {
			t.Fatal(err)
		}
		if got := rt.resolve(engageChannelPosts, tt.id, tt.ch) != nil; got != tt.want {
			t.Errorf("%s: answered %v, want %v", tt.name, got, tt.want)
		}
		if rt.resolve(engageMentions, tt.id, tt.ch) == nil && tt.name != "denied" {
			t.Errorf("%s: a mention is no longer answered", tt.name)
		}
	}
}

// FuzzSplitMrkdwn: on a small limit, whatever the text, every piece fits
// and is not blank, and no code block is left open.
func FuzzSplitMrkdwn(f *testing.F) {
	f.Add("```\nabc def ghi\n```\nxyz &amp; <@U1> 😀😀😀😀")
	f.Add(strings.Repeat("a", 100))
	f.Add("\n\n```\n\n")
	f.Fuzz(func(t *testing.T, text string) {
		for i, p := range splitMrkdwn(text, 24) {
			if utf16Len(p) > 24 || strings.TrimSpace(p) == "" {
				t.Fatalf("piece %d %q of %q", i, p, text)
			}
		}
	})
}

// BenchmarkSlackAnswer renders a long markdown answer (about 100 KB) as
// Block Kit messages.
func BenchmarkSlackAnswer(b *testing.B) {
	md := "## Findings\n" + strings.Repeat("- **item** & <x> with a [link](https://x.example/?a=1&b=2)\n", 1800)
	res := contract.AIAgentResult{Success: true, FinalReport: &contract.FinalReport{Format: "markdown", Content: &md}}
	b.ReportAllocs()
	for b.Loop() {
		if posts := slackAnswer(res); len(posts) == 0 {
			b.Fatal("no posts")
		}
	}
}

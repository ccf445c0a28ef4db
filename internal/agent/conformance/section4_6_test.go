package conformance

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// §4 every LLM request produces an entry with the contract's fields and the
// tracing ids; failed attempts carry zero tokens.
func TestSection4_LLMAccountingEntries(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("a", `{"turn":1,"failuresBeforeSuccess":1,"failureStatus":"model_error","failureMessage":"nope",
		"response":{"kind":"final-report","reportContent":"ok","finishReason":"stop","tokenUsage":{"inputTokens":100,"outputTokens":20,"cachedTokens":30}}}`))
	o := h.run("--models", "test/a", "s", "u").mustExit(t, 0)
	acc := o.res.Accounting
	if len(acc) < 2 {
		t.Fatalf("accounting = %s", o.raw)
	}
	failed, ok := acc[0], acc[1]
	if failed.Type != "llm" || failed.Status != "failed" || failed.Error != "nope" || failed.Tokens == nil || failed.Tokens.TotalTokens != 0 {
		t.Fatalf("failed entry = %+v", failed)
	}
	if ok.Provider != "test" || ok.Model != "a" || ok.Status != "ok" || ok.StopReason != "stop" ||
		ok.Tokens.InputTokens != 100 || ok.Tokens.OutputTokens != 20 || ok.Tokens.CachedTokens == nil || *ok.Tokens.CachedTokens != 30 {
		t.Fatalf("ok entry = %+v tokens %+v", ok, ok.Tokens)
	}
	for _, e := range acc {
		if e.Timestamp <= 0 || e.Latency < 0 || e.TxnID == "" || e.OriginTxnID == "" || e.AgentID == "" || e.CallPath == "" {
			t.Fatalf("entry without timing or tracing ids: %+v", e)
		}
	}
}

// §4 every tool execution produces an entry, failures included; calls
// dropped before execution produce none.
func TestSection4_ToolAccountingEntries(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("t", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[
		{"toolName":"rest__echo","arguments":{"text":"héllo"}},
		{"toolName":"rest__status","arguments":{"code":500}},
		{"toolName":"rest__ghost","arguments":{}}]}}`, report(2, "ok")))
	o := h.run("--models", "test/t", "--tools", "echo,status", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	echo := toolEntries(o.res.Accounting, "rest__echo")
	status := toolEntries(o.res.Accounting, "rest__status")
	if len(echo) != 1 || echo[0].MCPServer != "rest" || echo[0].Status != "ok" || *echo[0].CharactersIn != len([]rune(`{"text":"héllo"}`)) ||
		*echo[0].CharactersOut != 5 || echo[0].Source != "native" {
		t.Fatalf("echo entry = %+v", echo)
	}
	if len(status) != 1 || status[0].Status != "failed" || status[0].Error != "HTTP 500" || *status[0].CharactersOut != 0 {
		t.Fatalf("status entry = %+v", status)
	}
	if len(toolEntries(o.res.Accounting, "rest__ghost")) != 0 {
		t.Fatalf("unknown tool was accounted")
	}
	if msg := toolMessages(o.res.Conversation)["call-1-2"]; msg != "(tool failed: HTTP 500)" {
		t.Fatalf("failed tool message = %q", msg)
	}
	if msg := toolMessages(o.res.Conversation)["call-1-3"]; msg != "(tool failed: unknown tool 'rest__ghost')" {
		t.Fatalf("unknown tool message = %q", msg)
	}
}

// §4 accounting is chronological, and the billing file gets every entry as
// one JSON line.
func TestSection4_ChronologicalAndBilling(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("c", echoTurn(1, "a"), echoTurn(2, "b"), report(3, "ok")))
	o := h.run("--models", "test/c", "--tools", "echo", "s", "u").mustExit(t, 0)
	for i := 1; i < len(o.res.Accounting); i++ {
		if o.res.Accounting[i].Timestamp < o.res.Accounting[i-1].Timestamp {
			t.Fatalf("accounting not chronological at %d", i)
		}
	}
	f, err := os.Open(filepath.Join(h.dir, "billing.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e contract.AccountingEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("billing line %d: %v", lines, err)
		}
		lines++
	}
	if lines != len(o.res.Accounting) {
		t.Fatalf("billing lines %d, accounting %d", lines, len(o.res.Accounting))
	}
}

// §5 the three sources of a final report: tool, text fallback, synthetic.
func TestSection5_FinalReportSources(t *testing.T) {
	cases := []struct {
		name    string
		turn    string
		args    []string
		code    int
		status  string
		content string
	}{
		{"tool", report(1, "from the tool"), nil, 0, "success", "from the tool"},
		{"text fallback on the final turn", `{"turn":1,"response":{"kind":"text","assistantText":"  plain answer  "}}`, []string{"--max-turns", "1"}, 0, "success", "plain answer"},
		{"synthetic", echoTurn(1, "x"), []string{"--max-turns", "1", "--tools", "echo"}, 1, "failure", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.scenario(one("s", tc.turn, `{"turn":2,"response":{"kind":"text","assistantText":""}}`))
			o := h.run(append(append([]string{"--models", "test/s"}, tc.args...), "s", "u")...).mustExit(t, tc.code)
			o.checkInvariants(t, 2)
			if o.res.FinalReport == nil || o.res.FinalReport.Status != tc.status {
				t.Fatalf("report = %s", o.raw)
			}
			if tc.content != "" && *o.res.FinalReport.Content != tc.content {
				t.Fatalf("content = %q", *o.res.FinalReport.Content)
			}
		})
	}
}

// §5 format always matches the session's expected format.
func TestSection5_FormatNormalised(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("f", `{"turn":1,"response":{"kind":"final-report","reportFormat":"slack-block-kit","reportContent":"hi"}}`))
	for _, tr := range []string{"native", "xml-final"} {
		o := h.run("--models", "test/f", "--format", "markdown", "--tooling-transport", tr, "s", "u").mustExit(t, 0)
		if o.res.FinalReport.Format != "markdown" || *o.res.FinalReport.Content != "hi" {
			t.Fatalf("%s: report = %s", tr, o.raw)
		}
	}
}

// §5 content_json is validated against the schema; slack messages carry
// blocks.
func TestSection5_StructuredFormats(t *testing.T) {
	h := newHarness(t)
	h.scenario(`[{"id":"json","turns":[{"turn":1,"response":{"kind":"final-report","reportContentJson":{"z":1,"a":"two"}}}]},
		{"id":"slack","turns":[{"turn":1,"response":{"kind":"final-report","reportMessages":[{"blocks":[{"type":"section","text":{"type":"mrkdwn","text":"hi"}}]}]}}]}]`)
	o := h.run("--models", "test/json", "--schema", `{"type":"object","required":["z"]}`, "s", "u").mustExit(t, 0)
	if o.stdout != "{\n  \"z\": 1,\n  \"a\": \"two\"\n}\n" {
		t.Fatalf("json stdout = %q", o.stdout)
	}
	o = h.run("--models", "test/json", "--schema", `{"type":"object","required":["missing"]}`, "--max-turns", "1", "s", "u").mustExit(t, 1)
	if o.res.FinalReport.Status != "failure" {
		t.Fatalf("non-conforming content_json accepted")
	}
	o = h.run("--models", "test/slack", "--format", "slack-block-kit", "s", "u").mustExit(t, 0)
	if len(o.res.FinalReport.Messages) != 1 || !strings.Contains(o.stdout, `"blocks"`) {
		t.Fatalf("slack report = %s", o.raw)
	}
}

// §6 role order and tool-message rules.
func TestSection6_ConversationOrder(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("o", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[
		{"toolName":"rest__echo","arguments":{"text":"one"},"callId":"A"},
		{"toolName":"rest__status","arguments":{"code":404},"callId":"B"}]}}`, report(2, "done")))
	o := h.run("--models", "test/o", "--tools", "echo,status", "--tooling-transport", "native", "the system", "the task").mustExit(t, 0)
	c := o.res.Conversation
	roles := make([]string, len(c))
	for i, m := range c {
		roles[i] = m.Role
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,tool,assistant" {
		t.Fatalf("roles = %v", roles)
	}
	if !strings.HasPrefix(c[0].Content, "the system") || c[1].Content != "the task" {
		t.Fatalf("prompts = %q / %q", c[0].Content, c[1].Content)
	}
	if c[3].ToolCallID != "A" || c[3].Content != "one" || c[4].ToolCallID != "B" || c[4].Content != "(tool failed: HTTP 404)" {
		t.Fatalf("tool messages = %+v %+v", c[3], c[4])
	}
	if len(c[2].ToolCalls) != 2 || c[2].ToolCalls[0].ID != "A" || string(c[2].ToolCalls[0].Parameters) == "" {
		t.Fatalf("assistant tool calls = %+v", c[2].ToolCalls)
	}
	if last := c[len(c)-1]; last.Role != "assistant" || len(last.ToolCalls) != 1 || last.ToolCalls[0].Name != "agent__final_report" {
		t.Fatalf("conversation does not end with the report call: %+v", last)
	}
}

// §6 ephemeral messages (retry notices, XML-NEXT, the final-turn notice)
// are sent to the provider but never stored in the conversation.
func TestSection6_EphemeralNotStored(t *testing.T) {
	w := newWire(t)
	w.srv.Push(llmtest.Reply{Text: "plain text, no tools"}, echoReply("a"), finalReply("done"))
	o := w.h.run("--models", "wire/m", "--tools", "echo", "--max-turns", "2", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	reqs := w.srv.Requests()
	sent := 0
	for _, r := range reqs {
		for _, m := range requestMessages(r) {
			if c, _ := m["content"].(string); strings.HasPrefix(c, "System notice:") {
				sent++
			}
		}
	}
	if sent < 2 {
		t.Fatalf("ephemeral notices sent %d times", sent)
	}
	for _, m := range o.res.Conversation {
		if strings.HasPrefix(m.Content, "System notice:") || m.Content == "plain text, no tools" {
			t.Fatalf("ephemeral or ignored message stored: %q", m.Content)
		}
	}
}

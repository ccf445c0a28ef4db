package conformance

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

var nonceRE = regexp.MustCompile(`<ai-agent-([0-9a-f]{8})-`)

// §11 xml-final is the default: tools stay native, the report comes as the
// FINAL tag, the system prompt carries no tool text, and XML-NEXT is never
// stored.
func TestSection11_XMLFinalDefault(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("d", echoTurn(1, "x"), report(2, "# Done")))
	o := h.run("--models", "test/d", "--tools", "echo", "--format", "markdown", "the system prompt", "u").mustExit(t, 0)
	c := o.res.Conversation
	if c[0].Content != "the system prompt" {
		t.Fatalf("system message altered: %q", c[0].Content)
	}
	if len(c[2].ToolCalls) != 1 || c[3].Role != contract.RoleTool {
		t.Fatalf("xml-final did not keep native tools: %+v", c[2])
	}
	last := c[len(c)-1]
	if !strings.Contains(last.Content, "-FINAL tool=\"agent__final_report\"") || len(last.ToolCalls) != 0 {
		t.Fatalf("report not delivered by tag: %+v", last)
	}
	for _, m := range c {
		if strings.Contains(m.Content, "System notice: turn") {
			t.Fatalf("XML-NEXT stored in the conversation")
		}
	}
	e := toolEntries(o.res.Accounting, "agent__final_report_xml")
	if len(e) != 1 || e[0].MCPServer != "agent" || e[0].Source != "xml" || e[0].Status != "ok" {
		t.Fatalf("final report xml entry = %+v", e)
	}
}

// §11 the nonce is fixed for the session and numbered slots continue
// across turns; XML-PAST is a permanent user message.
func TestSection11_NonceSlotsAndXMLPast(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("x", echoTurn(1, "first"), echoTurn(2, "second"), report(3, "done")))
	o := h.run("--models", "test/x", "--tools", "echo", "--tooling-transport", "xml", "--max-tool-calls-per-turn", "3", "s", "u").mustExit(t, 0)
	c := o.res.Conversation
	roles := []string{}
	for _, m := range c {
		roles = append(roles, m.Role+":"+m.NoticeType)
	}
	if strings.Join(roles, ",") != "system:,user:,assistant:,user:xml-past,assistant:,user:xml-past,assistant:" {
		t.Fatalf("roles = %v", roles)
	}
	n1 := nonceRE.FindStringSubmatch(c[2].Content)
	n2 := nonceRE.FindStringSubmatch(c[4].Content)
	n3 := nonceRE.FindStringSubmatch(c[6].Content)
	if n1 == nil || n2 == nil || n3 == nil || n1[1] != n2[1] || n2[1] != n3[1] {
		t.Fatalf("nonce not constant: %v %v %v", n1, n2, n3)
	}
	nonce := n1[1]
	if !strings.Contains(c[2].Content, nonce+"-0001") || !strings.Contains(c[4].Content, nonce+"-0004") {
		t.Fatalf("slots: %q / %q", c[2].Content, c[4].Content)
	}
	want := fmt.Sprintf("System Notice: tool response for %s-0004 (rest__echo) status=\"ok\"", nonce)
	if !strings.HasPrefix(c[5].Content, want) || !strings.Contains(c[5].Content, "<response>second</response>") {
		t.Fatalf("xml-past = %q", c[5].Content)
	}
	for _, e := range toolEntries(o.res.Accounting, "rest__echo") {
		if e.Source != "xml" {
			t.Fatalf("xml tool entry source = %q", e.Source)
		}
	}
}

// §11 unclosed FINAL tag: accepted on a normal stop, retried on length.
func TestSection11_UnclosedFinalByStopReason(t *testing.T) {
	cases := []struct {
		stop string
		code int
	}{{"stop", 0}, {"end_turn", 0}, {"eos", 0}, {"mystery", 0}, {"length", 1}, {"max_tokens", 1}}
	for _, tc := range cases {
		t.Run(tc.stop, func(t *testing.T) {
			h := newHarness(t)
			h.scenario(one("u", `{"turn":1,"response":{"kind":"text","finishReason":"`+tc.stop+`",
				"assistantText":"<ai-agent-{{NONCE}}-FINAL tool=\"agent__final_report\" format=\"markdown\"># Unclosed report"}}`))
			o := h.run("--models", "test/u", "--format", "markdown", "--max-turns", "1", "--max-retries", "2", "s", "u").mustExit(t, tc.code)
			if tc.code == 0 && *o.res.FinalReport.Content != "# Unclosed report" {
				t.Fatalf("content = %q", *o.res.FinalReport.Content)
			}
			if tc.code == 1 && len(llmSeq(o.res.Accounting)) != 2 {
				t.Fatalf("truncated FINAL was not retried: %v", llmSeq(o.res.Accounting))
			}
		})
	}
}

// §11 tags are found by substring: prose around them, foreign nonces and
// wrong slots are ignored, the last valid FINAL wins.
func TestSection11_SubstringTagDetection(t *testing.T) {
	h := newHarness(t)
	text := `Sure! <ai-agent-deadbeef-FINAL tool=\"agent__final_report\" format=\"markdown\">foreign</ai-agent-deadbeef-FINAL>` +
		` then <ai-agent-{{NONCE}}-FINAL tool=\"agent__final_report\" format=\"markdown\">first</ai-agent-{{NONCE}}-FINAL>` +
		` and <ai-agent-{{NONCE}}-FINAL tool=\"agent__final_report\" format=\"markdown\">  second  </ai-agent-{{NONCE}}-FINAL> bye`
	h.scenario(one("s", `{"turn":1,"response":{"kind":"text","assistantText":"`+text+`"}}`))
	o := h.run("--models", "test/s", "--format", "markdown", "s", "u").mustExit(t, 0)
	if *o.res.FinalReport.Content != "second" {
		t.Fatalf("content = %q", *o.res.FinalReport.Content)
	}
}

// §11 a native agent__final_report call in xml-final is an unknown tool.
func TestSection11_NativeFinalReportInXMLFinal(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("n", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__final_report","arguments":{"report_format":"pipe","report_content":"x"}}]}}`,
		report(2, "tagged")))
	o := h.run("--models", "test/n", "--format", "pipe", "s", "u").mustExit(t, 0)
	if msg := toolMessages(o.res.Conversation)["call-1-1"]; msg != "(tool failed: unknown tool 'agent__final_report')" {
		t.Fatalf("tool message = %q", msg)
	}
	if *o.res.FinalReport.Content != "tagged" {
		t.Fatalf("content = %q", *o.res.FinalReport.Content)
	}
}

// §11 streaming: the wire mode changes, the result does not; stdout still
// carries only the report.
func TestSection11_Streaming(t *testing.T) {
	w := newWire(t)
	w.srv.Push(echoReply("a"), finalReply("streamed report"))
	o := w.h.run("--models", "wire/m", "--tools", "echo", "--stream", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if o.stdout != "streamed report\n" {
		t.Fatalf("stdout = %q", o.stdout)
	}
	for i, r := range w.srv.Requests() {
		if !r.Stream {
			t.Fatalf("request %d not streamed", i)
		}
	}
}

// §11 JSON payloads in the FINAL tag are parsed, unwrapped and validated.
func TestSection11_XMLJSONPayload(t *testing.T) {
	h := newHarness(t)
	wrapped := `<ai-agent-{{NONCE}}-FINAL tool=\"agent__final_report\" format=\"json\">{\"report_format\":\"json\",\"content_json\":{\"ok\":true}}</ai-agent-{{NONCE}}-FINAL>`
	h.scenario(one("j", `{"turn":1,"response":{"kind":"text","assistantText":"`+wrapped+`"}}`))
	o := h.run("--models", "test/j", "--schema", `{"type":"object","required":["ok"]}`, "s", "u").mustExit(t, 0)
	if compact(o.res.FinalReport.ContentJSON) != `{"ok":true}` {
		t.Fatalf("content_json = %s", o.res.FinalReport.ContentJSON)
	}
}

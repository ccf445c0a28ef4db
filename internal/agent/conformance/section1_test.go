package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// §1 maxTurns: never exceeded; synthetic failure when reached without a
// final report.
func TestSection1_MaxTurns(t *testing.T) {
	h := newHarness(t)
	var turns []string
	for i := 1; i <= 6; i++ {
		turns = append(turns, echoTurn(i, fmt.Sprint("t", i)))
	}
	h.scenario(one("loop", turns...))
	o := h.run("--models", "test/loop", "--tools", "echo", "--max-turns", "3", "sys", "go").mustExit(t, 1)
	o.checkInvariants(t, 3)
	if n := count(o.res.Conversation, contract.RoleAssistant); n != 3 {
		t.Fatalf("assistant messages = %d, want 3", n)
	}
	fr := o.res.FinalReport
	if fr == nil || fr.Status != contract.ReportFailure || fr.Metadata["reason"] != contract.ReasonMaxTurns {
		t.Fatalf("final report = %+v", fr)
	}
	if *fr.Content != "Session completed without a final report after 3 turns." || o.res.Error != *fr.Content {
		t.Fatalf("content %q error %q", *fr.Content, o.res.Error)
	}
	if o.stdout != *fr.Content+"\n" {
		t.Fatalf("stdout = %q", o.stdout)
	}
}

// §1 maxTurns: retries within a turn do not count.
func TestSection1_MaxTurnsRetriesDoNotCount(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("r", `{"turn":1,"failuresBeforeSuccess":2,"failureStatus":"model_error","response":{"kind":"tool-call","toolCalls":[{"toolName":"rest__echo","arguments":{"text":"a"}}]}}`,
		report(2, "done")))
	o := h.run("--models", "test/r", "--tools", "echo", "--max-turns", "2", "--max-retries", "3", "sys", "go").mustExit(t, 0)
	o.checkInvariants(t, 2)
	want := []string{"test:failed", "test:failed", "test:ok", "test:ok"}
	if got := llmSeq(o.res.Accounting); !slices.Equal(got, want) {
		t.Fatalf("llm entries = %v, want %v", got, want)
	}
}

// §1 maxTurns: on the last turn only the final-report tool is offered.
func TestSection1_LastTurnOffersOnlyFinalReport(t *testing.T) {
	w := newWire(t)
	w.srv.Push(echoReply("a"), finalReply("done"))
	o := w.h.run("--models", "wire/m", "--tools", "echo,batch", "--max-turns", "2", "--tooling-transport", "native", "sys", "go").mustExit(t, 0)
	o.checkInvariants(t, 2)
	reqs := w.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	if first := offeredTools(reqs[0]); !slices.Contains(first, "rest__echo") || !slices.Contains(first, "agent__batch") {
		t.Fatalf("turn 1 offers %v", first)
	}
	if last := offeredTools(reqs[1]); !slices.Equal(last, []string{"agent__final_report"}) {
		t.Fatalf("last turn offers %v", last)
	}
}

// §1 maxToolCallsPerTurn: excess calls dropped, not executed, and the model
// is told.
func TestSection1_MaxToolCallsPerTurn(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("many", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[
		{"toolName":"rest__echo","arguments":{"text":"1"}},{"toolName":"rest__echo","arguments":{"text":"2"}},
		{"toolName":"rest__echo","arguments":{"text":"3"}}]}}`, report(2, "ok")))
	o := h.run("--models", "test/many", "--tools", "echo", "--max-tool-calls-per-turn", "2", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	o.checkInvariants(t, 0)
	if n := len(toolEntries(o.res.Accounting, "rest__echo")); n != 2 {
		t.Fatalf("executed %d calls, want 2", n)
	}
	msgs := toolMessages(o.res.Conversation)
	if msgs["call-1-1"] != "1" || msgs["call-1-2"] != "2" || msgs["call-1-3"] != "(tool failed: tool call limit exceeded (maxToolCallsPerTurn=2))" {
		t.Fatalf("tool messages = %v", msgs)
	}
}

// §1 maxRetries: total attempts per turn, round-robin over the targets.
func TestSection1_MaxRetriesRoundRobin(t *testing.T) {
	h := newHarness(t)
	h.scenario(`[{"id":"m","turns":[{"turn":1,"failuresBeforeSuccess":1,"failureStatus":"network_error","response":{"kind":"final-report","reportContent":"ok"}}]}]`)
	o := h.run("--models", "test/m,test2/m", "--max-retries", "3", "s", "u").mustExit(t, 0)
	o.checkInvariants(t, 0)
	want := []string{"test:failed", "test2:failed", "test:ok"}
	if got := llmSeq(o.res.Accounting); !slices.Equal(got, want) {
		t.Fatalf("llm entries = %v, want %v", got, want)
	}
}

// §1 maxRetries: after the attempts are exhausted the turn fails and the
// session continues to the next turn.
func TestSection1_MaxRetriesExhausted(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("x", `{"turn":1,"failuresBeforeSuccess":9,"failureStatus":"timeout","response":{"kind":"final-report","reportContent":"never"}}`))
	for _, tc := range []struct {
		retries string
		want    int
	}{{"1", 1}, {"2", 2}, {"0", 1}} {
		o := h.run("--models", "test/x", "--max-retries", tc.retries, "--max-turns", "1", "s", "u").mustExit(t, 1)
		o.checkInvariants(t, 1)
		if n := len(llmSeq(o.res.Accounting)); n != tc.want {
			t.Fatalf("maxRetries %s: %d attempts, want %d", tc.retries, n, tc.want)
		}
		if !strings.Contains(o.res.Error, "Cause: ") {
			t.Fatalf("synthetic report without cause: %q", o.res.Error)
		}
	}
}

// §1 toolResponseMaxBytes: the exact notice, a warning with the sizes, the
// batch exemption.
func TestSection1_ToolResponseMaxBytes(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("big", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[
		{"toolName":"rest__big","arguments":{"n":10240}},
		{"toolName":"agent__batch","arguments":{"calls":[{"id":1,"tool":"rest__big","parameters":{"n":3000}},{"id":2,"tool":"rest__big","parameters":{"n":3000}}]}}]}}`,
		report(2, "ok")))
	o := h.run("--models", "test/big", "--tools", "big,batch", "--tool-response-max-bytes", "1024", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	msgs := toolMessages(o.res.Conversation)
	direct := msgs["call-1-1"]
	if !strings.HasPrefix(direct, "[TRUNCATED] Original size 10240 bytes; truncated to 1024 bytes.\n\n") || len(direct) > 1024 {
		t.Fatalf("direct output (%d bytes) = %.80q", len(direct), direct)
	}
	batch := msgs["call-1-2"]
	if len(batch) <= 1024 || strings.Count(batch, "[TRUNCATED] Original size 3000 bytes; truncated to 1024 bytes.") != 2 {
		t.Fatalf("batch output (%d bytes) = %.200q", len(batch), batch)
	}
	if !strings.Contains(o.stderr, "rest__big") || !strings.Contains(o.stderr, "10240") || !strings.Contains(o.stderr, "1024") {
		t.Fatalf("no truncation warning with sizes on stderr:\n%s", o.stderr)
	}
}

// §1 toolTimeout: "(tool failed: timeout)" and a failed accounting entry.
func TestSection1_ToolTimeout(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("slow", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"rest__slow","arguments":{}}]}}`, report(2, "ok")))
	o := h.run("--models", "test/slow", "--tools", "slow", "--tool-timeout-ms", "200", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if msg := toolMessages(o.res.Conversation)["call-1-1"]; msg != "(tool failed: timeout)" {
		t.Fatalf("tool message = %q", msg)
	}
	e := toolEntries(o.res.Accounting, "rest__slow")
	if len(e) != 1 || e[0].Status != contract.AccountingFail || e[0].Error != "timeout" {
		t.Fatalf("entries = %+v", e)
	}
}

// §1 tool request parsing and repair: repaired calls run, unrepairable
// calls are dropped with an error, valid calls of the same message run.
func TestSection1_ToolArgumentRepair(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("rep", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[
		{"toolName":"rest__echo","rawArguments":"{\"text\": \"fixed\",}"},
		{"toolName":"rest__echo","rawArguments":"this is not json"},
		{"toolName":"rest__echo","rawArguments":"{\"text\":\"plain\"}"}]}}`, report(2, "ok")))
	o := h.run("--models", "test/rep", "--tools", "echo", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	msgs := toolMessages(o.res.Conversation)
	if msgs["call-1-1"] != "fixed" || msgs["call-1-3"] != "plain" || !strings.HasPrefix(msgs["call-1-2"], "(tool failed: invalid arguments: ") {
		t.Fatalf("tool messages = %v", msgs)
	}
	if n := len(toolEntries(o.res.Accounting, "rest__echo")); n != 2 {
		t.Fatalf("executed %d, want 2", n)
	}
	if !strings.Contains(o.stderr, "this is not json") || !strings.Contains(o.stderr, `{\"text\": \"fixed\",}`) {
		t.Fatalf("repair/drop logs missing the payloads:\n%s", o.stderr)
	}
}

// §1 final report encoding base64, decoded before use.
func TestSection1_FinalReportBase64(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("b64", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__final_report",
		"arguments":{"report_format":"markdown","report_content":"IyBIZWxsbw==","encoding":"base64"}}]}}`))
	o := h.run("--models", "test/b64", "--format", "markdown", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if *o.res.FinalReport.Content != "# Hello" || o.stdout != "# Hello\n" {
		t.Fatalf("content = %q", *o.res.FinalReport.Content)
	}
}

// §1 content_json: schema validation with the repair loop for stringified
// nested JSON.
func TestSection1_ContentJSONRepairLoop(t *testing.T) {
	h := newHarness(t)
	h.scenario(one("j", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__final_report",
		"arguments":{"report_format":"json","content_json":{"summary":"s","details":"{\"count\": 2}"}}}]}}`))
	schema := `{"type":"object","required":["summary","details"],"properties":{"summary":{"type":"string"},"details":{"type":"object","required":["count"]}}}`
	o := h.run("--models", "test/j", "--schema", schema, "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if got := compact(o.res.FinalReport.ContentJSON); got != `{"details":{"count":2},"summary":"s"}` {
		t.Fatalf("content_json = %s", got)
	}
}

// §1 a failing final-report tool collapses the remaining turns.
func TestSection1_FinalReportFailureCollapsesTurns(t *testing.T) {
	h := newHarness(t)
	bad := `{"turn":%d,"response":{"kind":"tool-call","toolCalls":[{"toolName":"agent__final_report","arguments":{"report_format":"json","content_json":{"wrong":true}}}]}}`
	h.scenario(one("c", fmt.Sprintf(bad, 1), fmt.Sprintf(bad, 2), fmt.Sprintf(bad, 3)))
	o := h.run("--models", "test/c", "--schema", `{"type":"object","required":["right"]}`, "--max-turns", "10", "--tooling-transport", "native", "s", "u").mustExit(t, 1)
	o.checkInvariants(t, 10)
	if n := count(o.res.Conversation, contract.RoleAssistant); n != 2 {
		t.Fatalf("turns after the failure were not collapsed: %d assistant messages", n)
	}
	if o.res.FinalReport.Metadata["reason"] != contract.ReasonFinalReportFailed {
		t.Fatalf("reason = %v", o.res.FinalReport.Metadata["reason"])
	}
	if !strings.Contains(o.stderr, `payload=`) || !strings.Contains(o.stderr, `\"wrong\":true`) {
		t.Fatalf("ERR log without the payload:\n%s", o.stderr)
	}
}

// §1 temperature, topP, topK and maxOutputTokens are passed on every
// request; UNSET is not sent; per-model overrides win.
func TestSection1_SamplingParametersPassed(t *testing.T) {
	h := newHarness(t)
	h.config(map[string]any{"providers": map[string]any{
		"test": map[string]any{"type": "test-llm", "scenarioFile": "s.json", "models": map[string]any{
			"forced": map[string]any{"overrides": map[string]any{"temperature": 0.9, "top_p": nil}}}},
	}})
	turn := func(n int, temp, topP, kind string) string {
		resp := `{"kind":"tool-call","toolCalls":[{"toolName":"rest__echo","arguments":{"text":"x"}}]}`
		if kind == "report" {
			resp = `{"kind":"final-report","reportContent":"ok"}`
		}
		return fmt.Sprintf(`{"turn":%d,"expectedTemperature":%s,"expectedTopP":%s,"expectedTopK":null,"expectedMaxOutputTokens":77,"response":%s}`, n, temp, topP, resp)
	}
	h.scenario(`[{"id":"m","turns":[` + turn(1, "0.5", "0.3", "tool") + "," + turn(2, "0.5", "0.3", "report") + `]},
		{"id":"forced","turns":[` + turn(1, "0.9", "null", "report") + `]}]`)
	h.run("--models", "test/m", "--tools", "echo", "--temperature", "0.5", "--top-p", "0.3", "--max-output-tokens", "77", "s", "u").mustExit(t, 0)
	h.run("--models", "test/forced", "--temperature", "0.5", "--top-p", "0.3", "--max-output-tokens", "77", "s", "u").mustExit(t, 0)
	o := h.run("--models", "test/m", "--tools", "echo", "--temperature", "0.7", "--top-p", "0.3", "--max-output-tokens", "77", "s", "u").mustExit(t, 1)
	if !strings.Contains(o.res.Error, "test-llm:") {
		t.Fatalf("a wrong temperature was not detected: %s", o.res.Error)
	}
}

// §1 queues.<name>.concurrent bounds the concurrent executions of the tools
// bound to the queue; extra calls wait, and the wait is in accounting.
func TestSection1_QueueConcurrency(t *testing.T) {
	h := newHarness(t)
	call := `{"toolName":"rest__conc","arguments":{}}`
	h.scenario(one("q", `{"turn":1,"response":{"kind":"tool-call","toolCalls":[`+strings.Repeat(call+",", 3)+call+`]}}`, report(2, "ok")))
	o := h.run("--models", "test/q", "--tools", "conc", "--tooling-transport", "native", "s", "u").mustExit(t, 0)
	if p := h.peak.Load(); p != 1 {
		t.Fatalf("peak concurrency %d with concurrent 1", p)
	}
	entries := toolEntries(o.res.Accounting, "rest__conc")
	waited := 0
	for _, e := range entries {
		if e.Queue != "one" || e.QueueWaitMs == nil {
			t.Fatalf("entry without queue fields: %+v", e)
		}
		if *e.QueueWaitMs > 0 {
			waited++
		}
	}
	if len(entries) != 4 || waited < 3 {
		t.Fatalf("%d entries, %d waited", len(entries), waited)
	}
}

// §1 reasoning toggles are passed to the provider when enabled.
func TestSection1_ReasoningPassed(t *testing.T) {
	h := newHarness(t)
	h.scenario(`[{"id":"on","turns":[{"turn":1,"expectedReasoning":"enabled","response":{"kind":"final-report","reportContent":"x"}}]},
		{"id":"off","turns":[{"turn":1,"expectedReasoning":"disabled","response":{"kind":"final-report","reportContent":"x"}}]}]`)
	h.run("--models", "test/on", "--reasoning", "high", "s", "u").mustExit(t, 0)
	h.run("--models", "test/on", "--default-reasoning", "medium", "s", "u").mustExit(t, 0)
	h.run("--models", "test/off", "--reasoning", "none", "--default-reasoning", "high", "s", "u").mustExit(t, 0)
	h.run("--models", "test/off", "s", "u").mustExit(t, 0)
	o := h.run("--models", "test/off", "--reasoning", "low", "s", "u").mustExit(t, 1)
	if !strings.Contains(o.res.Error, "test-llm:") {
		t.Fatalf("an enabled reasoning went unnoticed: %s", o.res.Error)
	}
}

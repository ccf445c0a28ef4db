package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
	"github.com/salve-dev/salve/internal/llm"
)

func TestMaxTurnsSyntheticFailure(t *testing.T) {
	f := script(toolCall("c", "t__echo", `{"text":"hi"}`))
	o := opts(t, f)
	o.MaxTurns = 3
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	if res.Success || res.FinalReport == nil || res.FinalReport.Status != contract.ReportFailure {
		t.Fatalf("want synthetic failure, got %+v", res)
	}
	if got := res.FinalReport.Metadata["reason"]; got != contract.ReasonMaxTurns {
		t.Fatalf("reason = %v", got)
	}
	if res.Error != *res.FinalReport.Content {
		t.Fatalf("error %q != content %q", res.Error, *res.FinalReport.Content)
	}
	if !strings.HasPrefix(res.Error, "Session completed without a final report after 3 turns.") {
		t.Fatalf("content = %q", res.Error)
	}
	if n := countRole(res.Conversation, contract.RoleAssistant); n != 3 {
		t.Fatalf("assistant messages = %d", n)
	}
	last := f.reqs[len(f.reqs)-1]
	if len(last.Tools) != 1 || last.Tools[0].Name != ToolFinalReport {
		t.Fatalf("final turn offers %v", last.Tools)
	}
}

func TestRoundRobinAndRetryCountsNotTurns(t *testing.T) {
	fail := &llm.Error{Class: llm.ClassServer, Status: 500, Message: "boom"}
	a := script(fail)
	b := script(fail, finalCall("ok"))
	c := script(fail)
	o := opts(t, a, b, c)
	o.MaxRetries = 5
	o.MaxTurns = 1
	res := run(t, o)
	if !res.Success {
		t.Fatalf("want success, got %s", res.Error)
	}
	want := []string{"p1:failed", "p2:failed", "p3:failed", "p1:failed", "p2:ok"}
	if got := llmProviders(res.Accounting); !slices.Equal(got, want) {
		t.Fatalf("providers = %v, want %v", got, want)
	}
}

func TestMaxRetriesExhaustedThenNextTurn(t *testing.T) {
	fail := &llm.Error{Class: llm.ClassNetwork, Message: "conn refused"}
	n := 0
	f := &fakeLLM{complete: func(int, llm.Request) (llm.Response, error) {
		n++
		if n <= 2 {
			return llm.Response{}, fail
		}
		return finalCall("done"), nil
	}}
	o := opts(t, f)
	o.MaxRetries = 2
	o.MaxTurns = 2
	res := run(t, o)
	if !res.Success || len(llmProviders(res.Accounting)) != 3 {
		t.Fatalf("want success on turn 2 after 2 failed attempts: %v %s", llmProviders(res.Accounting), res.Error)
	}
}

func TestFatalErrors(t *testing.T) {
	for _, class := range []llm.Class{llm.ClassAuth, llm.ClassQuota, llm.ClassFatal} {
		t.Run(string(class), func(t *testing.T) {
			a := script(&llm.Error{Class: class, Status: 401, Message: "bad key"})
			b := script(finalCall("never"))
			o := opts(t, a, b)
			res := run(t, o)
			if res.Success || res.Error != "bad key" || res.FinalReport != nil {
				t.Fatalf("want fatal failure, got %+v", res)
			}
			if got := llmProviders(res.Accounting); !slices.Equal(got, []string{"p1:failed"}) {
				t.Fatalf("retried after a fatal error: %v", got)
			}
		})
	}
}

func TestRateLimitWaits(t *testing.T) {
	rl := func(d time.Duration) error {
		return &llm.Error{Class: llm.ClassRateLimit, Status: 429, RetryAfter: d, Message: "slow down"}
	}
	cases := []struct {
		name    string
		targets [][]any
		want    []time.Duration
	}{
		{"retry-after honoured", [][]any{{rl(3 * time.Second), finalCall("x")}}, []time.Duration{3 * time.Second}},
		{"exponential backoff", [][]any{{rl(0), rl(0), finalCall("x")}}, []time.Duration{time.Second, 2 * time.Second}},
		{"all targets limited waits the max", [][]any{{rl(2 * time.Second), finalCall("x")}, {rl(5 * time.Second)}},
			[]time.Duration{0, 5 * time.Second}},
		{"other target free: no wait", [][]any{{rl(9 * time.Second)}, {finalCall("x")}}, []time.Duration{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var clients []llm.Provider
			for _, rs := range tc.targets {
				clients = append(clients, script(rs...))
			}
			o := opts(t, clients...)
			rec := &sleepRecorder{}
			o.Sleep = rec.sleep
			o.MaxRetries = 5
			res := run(t, o)
			if !res.Success {
				t.Fatalf("want success: %s", res.Error)
			}
			if !slices.Equal(rec.waits, tc.want) {
				t.Fatalf("waits = %v, want %v", rec.waits, tc.want)
			}
		})
	}
}

func TestBackoffSequence(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}
	for i, w := range want {
		if got := backoff(i + 1); got != w*time.Second {
			t.Fatalf("backoff(%d) = %v, want %v", i+1, got, w*time.Second)
		}
	}
}

func TestEmptyResponseRetryNoticeIsEphemeral(t *testing.T) {
	f := script(text("", "stop"), finalCall("done"))
	o := opts(t, f)
	res := run(t, o)
	if !res.Success {
		t.Fatalf("want success: %s", res.Error)
	}
	second := f.reqs[1].Messages
	found := false
	for _, m := range second {
		if m.Content == RetryNotice {
			found = m.Ephemeral
		}
	}
	if !found {
		t.Fatalf("retry notice not sent as ephemeral on the retry")
	}
	if countRole(res.Conversation, contract.RoleAssistant) != 1 {
		t.Fatalf("empty response stored in the conversation")
	}
}

func TestReasoningOnlyProceeds(t *testing.T) {
	r := llm.Response{Reasoning: []contract.ReasoningPart{{Type: "reasoning", Text: "thinking"}}, StopReason: "stop"}
	f := script(r, finalCall("done"))
	o := opts(t, f)
	res := run(t, o)
	if !res.Success || len(f.reqs) != 2 || res.Conversation[2].Reasoning[0].Text != "thinking" {
		t.Fatalf("reasoning-only turn not kept: %+v", res.Conversation)
	}
}

func TestToolArgumentsRepairAndDrop(t *testing.T) {
	resp := llm.Response{ToolCalls: []llm.ToolCall{
		{ID: "a", Name: "t__echo", Arguments: `{"text": "one",}`},
		{ID: "b", Name: "t__echo", Arguments: `not json at all`},
		{ID: "c", Name: "t__echo", Arguments: `{"text":"three"}`},
		{ID: "d", Name: "t__nope", Arguments: `{}`},
		{ID: "e", Name: "t__echo", Arguments: `{"wrong":1}`},
	}}
	f := script(resp, finalCall("done"))
	o := opts(t, f)
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	want := map[string]string{
		"a": "one",
		"c": "three",
		"d": "(tool failed: unknown tool 't__nope')",
	}
	msgs := map[string]string{}
	for _, m := range res.Conversation {
		if m.Role == contract.RoleTool {
			msgs[m.ToolCallID] = m.Content
		}
	}
	for id, w := range want {
		if msgs[id] != w {
			t.Fatalf("tool message %s = %q, want %q", id, msgs[id], w)
		}
	}
	for _, id := range []string{"b", "e"} {
		if !strings.HasPrefix(msgs[id], "(tool failed: invalid arguments: ") {
			t.Fatalf("tool message %s = %q", id, msgs[id])
		}
	}
	tools := 0
	for _, e := range res.Accounting {
		if e.Type == contract.AccountingTool && e.Command == "t__echo" {
			tools++
		}
	}
	if tools != 2 {
		t.Fatalf("executed tool entries = %d, want 2", tools)
	}
}

func TestMaxToolCallsPerTurn(t *testing.T) {
	var calls []llm.ToolCall
	for i := range 4 {
		calls = append(calls, llm.ToolCall{ID: string(rune('a' + i)), Name: "t__echo", Arguments: `{"text":"x"}`})
	}
	f := script(llm.Response{ToolCalls: calls}, finalCall("done"))
	o := opts(t, f)
	o.MaxToolCallsPerTurn = 2
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	var dropped int
	for _, m := range res.Conversation {
		if m.Content == "(tool failed: tool call limit exceeded (maxToolCallsPerTurn=2))" {
			dropped++
		}
	}
	entries := 0
	for _, e := range res.Accounting {
		if e.Command == "t__echo" {
			entries++
		}
	}
	if dropped != 2 || entries != 2 {
		t.Fatalf("dropped %d, executed %d", dropped, entries)
	}
}

func TestToolTimeout(t *testing.T) {
	slow := &fakeTools{tools: echoTools().tools, call: func(ctx context.Context, _ string, _ json.RawMessage) (tools.Result, error) {
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	}}
	f := script(toolCall("a", "t__echo", `{"text":"x"}`), finalCall("done"))
	o := opts(t, f)
	o.ToolTimeout = 20 * time.Millisecond
	o.Tools = []tools.Provider{slow}
	res := run(t, o)
	if res.Conversation[3].Content != "(tool failed: timeout)" {
		t.Fatalf("tool message = %q", res.Conversation[3].Content)
	}
	for _, e := range res.Accounting {
		if e.Command == "t__echo" && (e.Status != contract.AccountingFail || e.Error != "timeout") {
			t.Fatalf("entry = %+v", e)
		}
	}
}

func TestTruncationAndBatchExemption(t *testing.T) {
	big := strings.Repeat("x", 3000)
	f := script(llm.Response{ToolCalls: []llm.ToolCall{
		{ID: "a", Name: "t__echo", Arguments: `{"text":"` + big + `"}`},
		{ID: "b", Name: ToolBatch, Arguments: `{"calls":[{"id":1,"tool":"t__echo","parameters":{"text":"` + big + `"}},{"id":2,"tool":"t__echo","parameters":{"text":"` + big + `"}}]}`},
	}}, finalCall("done"))
	o := opts(t, f)
	o.ToolResponseMaxBytes = 1024
	o.Batch = true
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	direct := res.Conversation[3].Content
	if !strings.HasPrefix(direct, "[TRUNCATED] Original size 3000 bytes; truncated to 1024 bytes.\n\n") || len(direct) > 1024 {
		t.Fatalf("direct output not truncated: %d %q", len(direct), direct[:60])
	}
	batch := res.Conversation[4].Content
	if len(batch) <= 1024 {
		t.Fatalf("batch output truncated as a whole")
	}
	var out struct {
		Results []struct {
			OK     bool   `json:"ok"`
			Output string `json:"output"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(batch), &out); err != nil || len(out.Results) != 2 {
		t.Fatalf("batch output: %v %s", err, batch[:80])
	}
	for _, r := range out.Results {
		if !r.OK || !strings.HasPrefix(r.Output, "[TRUNCATED]") {
			t.Fatalf("inner call not truncated: %+v", r)
		}
	}
}

func TestFinalReportVariants(t *testing.T) {
	cases := []struct {
		name    string
		format  string
		schema  string
		args    string
		wantOK  bool
		content string
		json    string
	}{
		{"markdown", "markdown", "", `{"report_format":"markdown","report_content":"# hi"}`, true, "# hi", ""},
		{"alias and normalised format", "markdown", "", `{"format":"json","content":"hello"}`, true, "hello", ""},
		{"base64", "pipe", "", `{"report_format":"pipe","report_content":"aGVsbG8=","encoding":"base64"}`, true, "hello", ""},
		{"bad base64", "pipe", "", `{"report_format":"pipe","report_content":"@@@","encoding":"base64"}`, false, "", ""},
		{"empty content", "markdown", "", `{"report_format":"markdown","report_content":"  "}`, false, "", ""},
		{"json", "json", `{"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}}`,
			`{"report_format":"json","content_json":{"a":1}}`, true, "", `{"a":1}`},
		{"json stringified", "json", `{"type":"object","required":["a"]}`,
			`{"report_format":"json","content_json":"{\"a\":2}"}`, true, "", `{"a":2}`},
		{"json nested stringified repaired", "json",
			`{"type":"object","properties":{"inner":{"type":"object","required":["x"]}}}`,
			`{"report_format":"json","content_json":{"inner":"{\"x\":1}"}}`, true, "", `{"inner":{"x":1}}`},
		{"json not matching", "json", `{"type":"object","required":["a"]}`, `{"report_format":"json","content_json":{"b":1}}`, false, "", ""},
	}
	// Both schema compilers: the default one (no failure locations, so the
	// repair looks at every string holding JSON) and ai-agent's full one.
	full := func(raw json.RawMessage) (SchemaValidator, error) {
		d, err := toolschema.CompileDocument(raw)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	for _, compiler := range []struct {
		name string
		c    SchemaCompiler
	}{{"basic", nil}, {"full", full}} {
		for _, tc := range cases {
			t.Run(compiler.name+"/"+tc.name, func(t *testing.T) {
				testFinalReportVariant(t, compiler.c, tc.format, tc.schema, tc.args, tc.wantOK, tc.content, tc.json)
			})
		}
	}
}

func testFinalReportVariant(t *testing.T, compiler SchemaCompiler, format, schema, args string, wantOK bool, content, wantJSON string) {
	t.Helper()
	f := script(toolCall("fr", ToolFinalReport, args), finalCall("second"))
	o := opts(t, f)
	o.SchemaCompiler = compiler
	o.Format = format
	o.Schema = json.RawMessage(schema)
	o.MaxTurns = 5
	res := run(t, o)
	if !wantOK {
		if len(f.reqs) != 2 {
			t.Fatalf("after a failed final report the next turn must be the last: %d requests", len(f.reqs))
		}
		return
	}
	if !res.Success || res.FinalReport.Format != format {
		t.Fatalf("want success in %s: %+v %s", format, res.FinalReport, res.Error)
	}
	if content != "" && *res.FinalReport.Content != content {
		t.Fatalf("content = %q", *res.FinalReport.Content)
	}
	if wantJSON != "" && string(res.FinalReport.ContentJSON) != wantJSON {
		t.Fatalf("content_json = %s", res.FinalReport.ContentJSON)
	}
	if last := res.Conversation[len(res.Conversation)-1]; last.Role != contract.RoleAssistant {
		t.Fatalf("conversation does not end with the assistant's report")
	}
}

func TestFinalReportFailureCollapses(t *testing.T) {
	bad := toolCall("fr", ToolFinalReport, `{"report_format":"markdown","report_content":""}`)
	f := script(bad)
	o := opts(t, f)
	o.MaxTurns = 10
	res := run(t, o)
	if res.Success || res.FinalReport.Metadata["reason"] != contract.ReasonFinalReportFailed {
		t.Fatalf("want final_report_tool_failed: %+v", res.FinalReport)
	}
	if len(f.reqs) != 2 {
		t.Fatalf("turns not collapsed: %d requests", len(f.reqs))
	}
}

func TestPanicBecomesResult(t *testing.T) {
	f := &fakeLLM{complete: func(int, llm.Request) (llm.Response, error) { panic("provider bug") }}
	res := run(t, opts(t, f))
	if res.Success || !strings.Contains(res.Error, "provider bug") {
		t.Fatalf("panic not turned into a result: %+v", res)
	}
}

func TestParamsPassedEveryRequest(t *testing.T) {
	temp, topP := 0.5, 0.9
	f := script(text("", "stop"), finalCall("x"))
	o := opts(t, f)
	o.Targets[0].Params = Params{Temperature: &temp, TopP: &topP, MaxOutputTokens: 100}
	run(t, o)
	for i, r := range f.reqs {
		if r.Temperature == nil || *r.Temperature != 0.5 || r.TopP == nil || *r.TopP != 0.9 || r.TopK != nil || r.MaxOutputTokens != 100 {
			t.Fatalf("request %d params: %+v", i, r)
		}
	}
}

func TestInvalidResponseSyntheticRetry(t *testing.T) {
	f := script(&llm.Error{Class: llm.ClassInvalidResponse, Message: "truncated body"}, finalCall("x"))
	res := run(t, opts(t, f))
	if !res.Success || len(f.reqs) != 2 {
		t.Fatalf("want retry then success: %s", res.Error)
	}
	last := f.reqs[1].Messages[len(f.reqs[1].Messages)-1]
	if !last.Ephemeral || !strings.Contains(last.Content, "invalid") {
		t.Fatalf("no ephemeral notice: %+v", last)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeLLM{complete: func(int, llm.Request) (llm.Response, error) {
		cancel()
		return llm.Response{}, errors.New("context canceled")
	}}
	x, err := New(opts(t, f))
	if err != nil {
		t.Fatal(err)
	}
	res := x.Run(ctx)
	if res.Success || res.Error == "" {
		t.Fatalf("want failure: %+v", res)
	}
}

package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// fakeLLM is a provider made of a function field; it records requests.
type fakeLLM struct {
	mu       sync.Mutex
	reqs     []llm.Request
	complete func(n int, req llm.Request) (llm.Response, error)
}

func (f *fakeLLM) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	f.mu.Unlock()
	return f.complete(n, req)
}

// script returns the responses in order; past the end it repeats the last.
func script(rs ...any) *fakeLLM {
	return &fakeLLM{complete: func(n int, _ llm.Request) (llm.Response, error) {
		r := rs[min(n, len(rs))-1]
		if err, ok := r.(error); ok {
			return llm.Response{}, err
		}
		return r.(llm.Response), nil
	}}
}

// fakeTools is a tool provider of function fields.
type fakeTools struct {
	tools []tools.Tool
	call  func(ctx context.Context, name string, args json.RawMessage) (tools.Result, error)
}

func (f *fakeTools) Tools() []tools.Tool { return f.tools }
func (f *fakeTools) Call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	return f.call(ctx, name, args)
}
func (f *fakeTools) Close() error { return nil }

// echoTools offers t__echo, which returns its text argument.
func echoTools() *fakeTools {
	return &fakeTools{
		tools: []tools.Tool{{Name: "t__echo", Server: "t", Kind: tools.KindMCP, Description: "echo",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}},
		call: func(_ context.Context, _ string, args json.RawMessage) (tools.Result, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(args, &in)
			return tools.Result{Text: in.Text}, nil
		},
	}
}

func toolCall(id, name, args string) llm.Response {
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: args}}, StopReason: "tool_calls",
		Usage: contract.TokenUsage{InputTokens: 10, OutputTokens: 5}}
}

func finalCall(content string) llm.Response {
	args, _ := json.Marshal(map[string]string{"report_format": "markdown", "report_content": content})
	return toolCall("fr", ToolFinalReport, string(args))
}

func text(s, stop string) llm.Response { return llm.Response{Content: s, StopReason: stop} }

type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *sleepRecorder) sleep(_ context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return nil
}

// opts builds native-transport options for one or more fake targets.
func opts(t *testing.T, clients ...llm.Provider) Options {
	t.Helper()
	o := Options{SystemPrompt: "sys", UserPrompt: "task", Transport: TransportNative, MaxRetries: 3, Format: FormatMarkdown, Nonce: "abcdef01"}
	for i, c := range clients {
		o.Targets = append(o.Targets, Target{Provider: fmt.Sprintf("p%d", i+1), Model: "m", Client: c})
	}
	o.Sleep = (&sleepRecorder{}).sleep
	return o
}

func run(t *testing.T, o Options) contract.AIAgentResult {
	t.Helper()
	x, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	res := x.Run(context.Background())
	checkInvariants(t, o, res)
	return res
}

// checkInvariants asserts the guarantees every result must meet
// (docs/contracts/ai-agent.md §2, §6, §9).
func checkInvariants(t *testing.T, o Options, res contract.AIAgentResult) {
	t.Helper()
	if res.Success && res.FinalReport == nil {
		t.Fatalf("success without a final report")
	}
	if !res.Success && res.Error == "" {
		t.Fatalf("failure without an error")
	}
	if res.FinalReport != nil && res.FinalReport.Status == contract.ReportSuccess != res.Success {
		t.Fatalf("status %q disagrees with success %v", res.FinalReport.Status, res.Success)
	}
	assistants := 0
	for i, m := range res.Conversation {
		if m.Role == contract.RoleAssistant {
			assistants++
		}
		if strings.HasPrefix(m.Content, "System notice: plain text") {
			t.Fatalf("ephemeral retry notice stored at %d", i)
		}
	}
	maxTurns := o.MaxTurns
	if maxTurns == 0 {
		maxTurns = DefaultMaxTurns
	}
	if assistants > maxTurns {
		t.Fatalf("%d assistant messages with maxTurns %d", assistants, maxTurns)
	}
	if len(res.Conversation) >= 2 && (res.Conversation[0].Role != contract.RoleSystem || res.Conversation[1].Role != contract.RoleUser) {
		t.Fatalf("conversation does not start system, user")
	}
}

func countRole(conv []contract.Message, role string) int {
	n := 0
	for _, m := range conv {
		if m.Role == role {
			n++
		}
	}
	return n
}

func llmProviders(acc []contract.AccountingEntry) []string {
	var out []string
	for _, e := range acc {
		if e.Type == contract.AccountingLLM {
			out = append(out, e.Provider+":"+e.Status)
		}
	}
	return out
}

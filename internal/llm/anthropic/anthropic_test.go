package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/llm/llmtest/providertest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const testKey = "sk-ant-test-0123456789"

const signed = `{"anthropic":{"signature":"EqQBCgIYAhIM"}}`

func fullRequest() llm.Request {
	return llm.Request{
		Model: "claude-test",
		Messages: []llm.Message{
			{Role: contract.RoleSystem, Content: "You are terse."},
			{Role: contract.RoleSystem, Content: "Second system part."},
			{Role: contract.RoleUser, Content: "Read a.txt and b.txt"},
			{Role: contract.RoleAssistant, Content: "Reading.",
				Reasoning: []contract.ReasoningPart{
					{Type: "reasoning", Text: "I should read both.", ProviderMetadata: json.RawMessage(signed)},
					{Type: "reasoning", ProviderMetadata: json.RawMessage(`{"anthropic":{"redactedData":"opaque"}}`)},
					{Type: "reasoning", Text: "unsigned, dropped"},
				},
				ToolCalls: []llm.ToolCall{
					{ID: "toolu_1", Name: "fs__read", Arguments: `{"path": "a.txt"}`},
					{ID: "toolu_2", Name: "fs__read", Arguments: `{"path": "b.txt"`},
				}},
			{Role: contract.RoleTool, ToolCallID: "toolu_1", Content: "alpha"},
			{Role: contract.RoleTool, ToolCallID: "toolu_2", Content: ""},
			{Role: contract.RoleSystem, Content: "Final turn: report now."},
			{Role: contract.RoleUser, Content: ""},
		},
		Tools: []llm.ToolDef{
			{Name: "fs__read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "agent__final_report"},
		},
		ToolChoice:      "required",
		Temperature:     new(1.0),
		TopP:            new(0.95),
		TopK:            new(40),
		RepeatPenalty:   new(1.1),
		MaxOutputTokens: 8000,
		Reasoning:       "high",
		Caching:         "full",
		Stream:          true,
	}
}

func TestRequestGolden(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Text: "ok"})
	p := New(Options{BaseURL: srv.AnthropicBaseURL(), APIKey: testKey, Headers: map[string]string{"anthropic-beta": "x"}})
	if _, err := p.Complete(context.Background(), fullRequest()); err != nil {
		t.Fatal(err)
	}
	rec := srv.Requests()[0]
	if rec.Path != "/v1/messages" || rec.Header.Get("x-api-key") != testKey ||
		rec.Header.Get("anthropic-version") != DefaultVersion || rec.Header.Get("anthropic-beta") != "x" ||
		rec.Header.Get("Authorization") != "" {
		t.Fatalf("path %s headers %v", rec.Path, rec.Header)
	}
	providertest.RequestGolden(t, filepath.Join("testdata", "request.golden.json"), rec.Body, *update)
}

func TestVersionHeader(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"})
	for _, o := range []Options{
		{BaseURL: srv.AnthropicBaseURL(), Headers: map[string]string{"Anthropic-Version": "2099-01-01"}},
		{BaseURL: srv.AnthropicBaseURL(), Version: "2098-01-01", Headers: map[string]string{"anthropic-version": "2099-01-01"}},
	} {
		if _, err := New(o).Complete(context.Background(), llm.Request{Model: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if v := reqs[0].Header.Values("Anthropic-Version"); len(v) != 1 || v[0] != "2099-01-01" {
		t.Errorf("header version: %v", v)
	}
	if v := reqs[1].Header.Values("Anthropic-Version"); len(v) != 1 || v[0] != "2098-01-01" {
		t.Errorf("option version: %v", v)
	}
}

func TestParameters(t *testing.T) {
	tests := []struct {
		name   string
		req    llm.Request
		absent []string
		check  func(map[string]any) bool
	}{
		{"unset are not sent", llm.Request{Reasoning: "none"},
			[]string{"temperature", "top_p", "top_k", "thinking", "tools", "tool_choice", "stream", "system"},
			func(m map[string]any) bool { return m["max_tokens"] == float64(DefaultMaxTokens) }},
		{"tokens win over level", llm.Request{Reasoning: "low", ReasoningTokens: new(3000), MaxOutputTokens: 10000}, nil,
			func(m map[string]any) bool { return budget(m) == 3000 }},
		{"level maps to budget", llm.Request{Reasoning: "medium", MaxOutputTokens: 10000}, nil,
			func(m map[string]any) bool { return budget(m) == 8192 }},
		{"max_tokens grows by the budget", llm.Request{ReasoningTokens: new(50000), MaxOutputTokens: 4000}, nil,
			func(m map[string]any) bool { return budget(m) == 50000 && m["max_tokens"] == 54000.0 }},
		{"default max_tokens grows too", llm.Request{Reasoning: "low"}, nil,
			func(m map[string]any) bool { return m["max_tokens"] == float64(DefaultMaxTokens+2048) }},
		{"thinking drops sampling", llm.Request{Reasoning: "low", Temperature: new(0.2), TopP: new(0.9), TopK: new(5)},
			[]string{"temperature", "top_p", "top_k"}, func(m map[string]any) bool { return budget(m) == 2048 }},
		{"sampling kept without thinking", llm.Request{Temperature: new(0.2), TopP: new(0.9), TopK: new(5)}, nil,
			func(m map[string]any) bool { return m["temperature"] == 0.2 && m["top_p"] == 0.9 && m["top_k"] == 5.0 }},
		{"budget raised to minimum", llm.Request{ReasoningTokens: new(10), MaxOutputTokens: 4000}, nil,
			func(m map[string]any) bool { return budget(m) == MinThinkingBudget }},
		{"zero tokens is off", llm.Request{Reasoning: "high", ReasoningTokens: new(0)}, []string{"thinking"}, nil},
		{"caching none", llm.Request{Caching: "none", Messages: []llm.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}}, nil,
			func(m map[string]any) bool { return !strings.Contains(mustJSON(m), "cache_control") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Push(llmtest.Reply{Text: "ok"})
			req := tt.req
			req.Model = "m"
			if req.Messages == nil {
				req.Messages = []llm.Message{{Role: "user", Content: "hi"}}
			}
			if _, err := New(Options{BaseURL: srv.AnthropicBaseURL()}).Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			body := srv.Requests()[0].JSON()
			for _, k := range tt.absent {
				if _, ok := body[k]; ok {
					t.Errorf("%q sent: %s", k, srv.Requests()[0].Body)
				}
			}
			if tt.check != nil && !tt.check(body) {
				t.Errorf("check failed on %s", srv.Requests()[0].Body)
			}
		})
	}
}

func budget(m map[string]any) float64 {
	th, _ := m["thinking"].(map[string]any)
	b, _ := th["budget_tokens"].(float64)
	return b
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestComplete(t *testing.T) {
	reply := llmtest.Reply{
		Text:               "Reading both — ✓",
		Reasoning:          "Two files to read.",
		ReasoningSignature: "sigXYZ",
		ToolCalls: []llmtest.ToolCall{
			{ID: "toolu_a", Name: "fs__read", Arguments: `{"path":"a.txt","n":[1,2]}`},
			{ID: "toolu_b", Name: "fs__list", Arguments: `{}`},
		},
		Usage:     &llmtest.Usage{Input: 12, Output: 40, CacheRead: 1000, CacheWrite: 200},
		ChunkSize: 4,
		Model:     "claude-test-2026",
	}
	want := llm.Response{
		Content: "Reading both — ✓",
		Reasoning: []contract.ReasoningPart{{Type: "reasoning", Text: "Two files to read.",
			ProviderMetadata: json.RawMessage(`{"anthropic":{"signature":"sigXYZ"}}`)}},
		ToolCalls: []llm.ToolCall{
			{ID: "toolu_a", Name: "fs__read", Arguments: `{"path":"a.txt","n":[1,2]}`},
			{ID: "toolu_b", Name: "fs__list", Arguments: `{}`},
		},
		StopReason: "tool_use",
		Usage: contract.TokenUsage{InputTokens: 212, OutputTokens: 40, CachedTokens: new(1000), CacheReadInputTokens: new(1000),
			CacheWriteInputTokens: new(200), TotalTokens: 1252},
		ActualModel: "claude-test-2026",
	}
	providertest.Complete(t, reply, want, func(srv *llmtest.Server, req llm.Request) (llm.Response, error) {
		return New(Options{BaseURL: srv.AnthropicBaseURL(), APIKey: testKey}).Complete(context.Background(), req)
	})
}

// TestThinkingReplay checks that a thinking block read from a response is
// sent back, signature included, when the message is replayed.
func TestThinkingReplay(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Reasoning: "hmm", ReasoningSignature: "sig-1", ToolCalls: []llmtest.ToolCall{{ID: "toolu_9", Name: "t", Arguments: `{"a":1}`}}},
		llmtest.Reply{Text: "done"})
	p := New(Options{BaseURL: srv.AnthropicBaseURL()})
	msgs := []llm.Message{{Role: "user", Content: "go"}}
	first, err := p.Complete(context.Background(), llm.Request{Model: "m", Messages: msgs, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, llm.Message{Role: "assistant", Reasoning: first.Reasoning, ToolCalls: first.ToolCalls},
		llm.Message{Role: "tool", ToolCallID: "toolu_9", Content: "r"})
	if _, err := p.Complete(context.Background(), llm.Request{Model: "m", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	var sent msgRequest
	if err := srv.Requests()[1].Decode(&sent); err != nil {
		t.Fatal(err)
	}
	a := sent.Messages[1]
	if a.Role != "assistant" || len(a.Content) != 2 || a.Content[0].Type != "thinking" || a.Content[0].Signature != "sig-1" ||
		*a.Content[0].Thinking != "hmm" || a.Content[1].Type != "tool_use" || string(a.Content[1].Input) != `{"a":1}` {
		t.Fatalf("replayed assistant message %s", mustJSON(a))
	}
	if u := sent.Messages[2]; u.Role != "user" || u.Content[0].Type != "tool_result" || u.Content[0].ToolUseID != "toolu_9" {
		t.Fatalf("tool result %s", mustJSON(u))
	}
}

func TestErrorClasses(t *testing.T) {
	tests := []providertest.ErrorCase{
		{Name: "401", Reply: llmtest.Unauthorized(), Class: llm.ClassAuth, Status: 401},
		{Name: "403", Reply: llmtest.Forbidden(), Class: llm.ClassAuth, Status: 403},
		{Name: "403 quota", Reply: llmtest.ForbiddenQuota(), Class: llm.ClassQuota, Status: 403},
		{Name: "402", Reply: llmtest.PaymentRequired(), Class: llm.ClassQuota, Status: 402},
		{Name: "429 billing", Reply: llmtest.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "Your credit balance is too low; check billing"}, Class: llm.ClassQuota, Status: 429},
		{Name: "429 retry-after", Reply: llmtest.RateLimited("3"), Class: llm.ClassRateLimit, Status: 429, MinRetry: 3 * time.Second},
		{Name: "500", Reply: llmtest.ServerError(500), Class: llm.ClassServer, Status: 500},
		{Name: "529 overloaded", Reply: llmtest.ServerError(529), Class: llm.ClassServer, Status: 529},
		{Name: "400", Reply: llmtest.BadRequest("prompt is too long"), Class: llm.ClassModel, Status: 400},
		{Name: "404", Reply: llmtest.Reply{Status: 404, ErrorType: "not_found_error", ErrorMessage: "model: claude-x"}, Class: llm.ClassModel, Status: 404},
		{Name: "hang", Reply: llmtest.Reply{Fault: llmtest.FaultHang}, Class: llm.ClassTimeout},
		{Name: "malformed", Reply: llmtest.Reply{Text: "hello world", Fault: llmtest.FaultMalformedJSON}, Class: llm.ClassInvalidResponse},
		{Name: "truncated body", Reply: llmtest.Reply{Text: "hello world", Fault: llmtest.FaultTruncateBody}, Class: llm.ClassInvalidResponse},
		{Name: "dropped", Reply: llmtest.Reply{Fault: llmtest.FaultDropConnection}, Class: llm.ClassNetwork},
		{Name: "not a message", Reply: llmtest.Reply{Body: `{"type":"completion"}`, Header: map[string]string{"Content-Type": "application/json"}}, Class: llm.ClassInvalidResponse},
		{Name: "truncated stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultTruncateStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "reset stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultResetStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "hang mid stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultHangMidStream}, StreamOnly: true, Class: llm.ClassTimeout},
		{Name: "overloaded event", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultStreamError, ErrorType: "overloaded_error"}, StreamOnly: true, Class: llm.ClassServer},
		{Name: "rate limit event", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultStreamError, ErrorType: "rate_limit_error"}, StreamOnly: true, Class: llm.ClassRateLimit},
	}
	providertest.ErrorClasses(t, tests, testKey, func(srv *llmtest.Server, stream bool) error {
		p := New(Options{BaseURL: srv.AnthropicBaseURL(), APIKey: testKey, Timeout: 300 * time.Millisecond})
		_, err := p.Complete(context.Background(), llm.Request{Model: "m", Stream: stream, Messages: []llm.Message{{Role: "user", Content: "x"}}})
		return err
	})
}

// TestRecordedStream replays a stream written after the API reference's
// example, with ping, a thinking block, a text block and a tool_use block
// whose input arrives in input_json_delta pieces.
func TestRecordedStream(t *testing.T) {
	srv := providertest.Replay(t, "stream-tool-use.sse")
	got, err := New(Options{BaseURL: srv.AnthropicBaseURL()}).Complete(context.Background(), llm.Request{Model: "m", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{
		Content: "Okay, let's check the weather for San Francisco, CA:",
		Reasoning: []contract.ReasoningPart{{Type: "reasoning", Text: "User wants weather.",
			ProviderMetadata: json.RawMessage(`{"anthropic":{"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}`)}},
		ToolCalls:   []llm.ToolCall{{ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather", Arguments: `{"location": "San Francisco, CA", "unit": "fahrenheit"}`}},
		StopReason:  "tool_use",
		Usage:       contract.TokenUsage{InputTokens: 472, OutputTokens: 89, CachedTokens: new(100), CacheReadInputTokens: new(100), TotalTokens: 661},
		ActualModel: "claude-opus-4-1-20250805",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %+v\nwant %+v", got, want)
	}
}

func fuzzProvider() *Provider { return New(Options{BaseURL: "http://127.0.0.1:1"}) }

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"message","content":[{"type":"tool_use","id":"a","name":"n","input":{"x":1}},{"type":"thinking","thinking":"t","signature":"s"}],"usage":{"input_tokens":1}}`))
	f.Add([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := fuzzProvider().decode(body)
		providertest.Classified(t, err)
	})
}

// FuzzStream is seeded with short streams, one path each, rather than the
// recorded stream (which the unit tests decode whole): with a seed of
// kilobytes each new finding cost up to a minute of minimisation, quadratic
// in the input's length, during which the fuzzer reported no executions.
func FuzzStream(f *testing.F) {
	f.Add([]byte(`event: message_start
data: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":4}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

event: message_stop
data: {"type":"message_stop"}

`))
	f.Add([]byte(`data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}

data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}

`))
	f.Add([]byte(`data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}

data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}

data: {"type":"message_stop"}

`))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := &http.Response{Body: io.NopCloser(bytes.NewReader(body))}
		out, err := fuzzProvider().readStream(context.Background(), resp, nil)
		providertest.Classified(t, err)
		for _, c := range out.ToolCalls {
			if c.ID == "" || c.Arguments == "" {
				t.Fatalf("tool call without id or arguments: %+v", c)
			}
		}
	})
}

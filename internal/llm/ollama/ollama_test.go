package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
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

func TestNormalizeBaseURL(t *testing.T) {
	tests := map[string]string{
		"":                           DefaultBaseURL,
		"http://h:11434/api":         "http://h:11434/api",
		"http://h:11434/api/":        "http://h:11434/api",
		"http://h:11434/v1":          "http://h:11434/api",
		"http://h:11434/v1/":         "http://h:11434/api",
		"https://proxy/ollama/v1":    "https://proxy/ollama/api",
		"http://h:11434/custom/path": "http://h:11434/custom/path",
	}
	for in, want := range tests {
		if got := NormalizeBaseURL(in); got != want {
			t.Errorf("NormalizeBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRequestGolden(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Text: "ok"})
	req := llm.Request{
		Model: "qwen3:8b",
		Messages: []llm.Message{
			{Role: contract.RoleSystem, Content: "You are terse."},
			{Role: contract.RoleUser, Content: "Read a.txt"},
			{Role: contract.RoleAssistant, Reasoning: []contract.ReasoningPart{{Type: "reasoning", Text: "need file"}},
				ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "fs__read", Arguments: `{"path": "a.txt"}`}, {ID: "call_2", Name: "fs__bad", Arguments: `{"x":`}}},
			{Role: contract.RoleTool, ToolCallID: "call_1", Content: "alpha"},
			{Role: contract.RoleTool, ToolCallID: "call_2", Content: "(tool failed: invalid arguments)"},
		},
		Tools:           []llm.ToolDef{{Name: "fs__read", Description: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Temperature:     new(0.6),
		TopP:            new(0.9),
		TopK:            new(20),
		RepeatPenalty:   new(1.05),
		MaxOutputTokens: 2048,
		Reasoning:       "high",
		Stream:          true,
	}
	p := New(Options{BaseURL: srv.URL + "/v1", APIKey: "ollama-key-123", Headers: map[string]string{"X-Org": "acme"}})
	if _, err := p.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rec := srv.Requests()[0]
	if rec.Path != "/api/chat" || rec.Header.Get("Accept") != "application/x-ndjson" || rec.Header.Get("Authorization") != "Bearer ollama-key-123" || rec.Header.Get("X-Org") != "acme" {
		t.Fatalf("path %s headers %v", rec.Path, rec.Header)
	}
	providertest.RequestGolden(t, filepath.Join("testdata", "request.golden.json"), rec.Body, *update)
}

func TestThinkAndUnset(t *testing.T) {
	tests := []struct {
		name  string
		req   llm.Request
		think any
	}{
		{"unset", llm.Request{Model: "qwen3"}, nil},
		{"none", llm.Request{Model: "qwen3", Reasoning: "none"}, false},
		{"zero tokens", llm.Request{Model: "qwen3", Reasoning: "high", ReasoningTokens: new(0)}, false},
		{"level on qwen", llm.Request{Model: "qwen3", Reasoning: "low"}, true},
		{"level on gpt-oss", llm.Request{Model: "gpt-oss:20b", Reasoning: "low"}, "low"},
		{"tokens only", llm.Request{Model: "qwen3", ReasoningTokens: new(100)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Push(llmtest.Reply{Text: "ok"})
			if _, err := New(Options{BaseURL: srv.OllamaBaseURL()}).Complete(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			body := srv.Requests()[0].JSON()
			if got := body["think"]; got != tt.think {
				t.Errorf("think = %#v, want %#v", got, tt.think)
			}
			if _, ok := body["options"]; ok {
				t.Errorf("options sent although unset: %s", srv.Requests()[0].Body)
			}
			if body["stream"] != false {
				t.Errorf("stream must be sent as false: %s", srv.Requests()[0].Body)
			}
		})
	}
}

func TestComplete(t *testing.T) {
	reply := llmtest.Reply{
		Text:      "Reading — ✓",
		Reasoning: "The user wants a file.",
		ToolCalls: []llmtest.ToolCall{{Name: "fs__read", Arguments: `{"path": "a.txt"}`}, {Name: "fs__list", Arguments: `{}`}},
		Usage:     &llmtest.Usage{Input: 30, Output: 7},
		ChunkSize: 3,
		Model:     "qwen3:8b",
	}
	want := llm.Response{
		Content:   "Reading — ✓",
		Reasoning: []contract.ReasoningPart{{Type: "reasoning", Text: "The user wants a file."}},
		ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "fs__read", Arguments: `{"path":"a.txt"}`},
			{ID: "call_2", Name: "fs__list", Arguments: `{}`},
		},
		StopReason:  "stop",
		Usage:       contract.TokenUsage{InputTokens: 30, OutputTokens: 7, TotalTokens: 37},
		ActualModel: "qwen3:8b",
	}
	for _, stream := range []bool{false, true} {
		srv := llmtest.NewServer()
		srv.Push(reply)
		var text strings.Builder
		n := 0
		req := llm.Request{Model: "qwen3:8b", Stream: stream, Messages: []llm.Message{{Role: "user", Content: "x"}},
			OnDelta: func(d llm.Delta) { text.WriteString(d.Text); n++ }}
		got, err := New(Options{BaseURL: srv.OllamaBaseURL()}).Complete(context.Background(), req)
		srv.Close()
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream=%v:\n got %+v\nwant %+v", stream, got, want)
		}
		if stream && (text.String() != want.Content || n < 3) {
			t.Errorf("deltas %q in %d calls", text.String(), n)
		}
		if !stream && n != 0 {
			t.Errorf("OnDelta called %d times without streaming", n)
		}
	}
}

func TestStopLength(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Text: "cut", StopReason: "length"})
	got, err := New(Options{BaseURL: srv.OllamaBaseURL()}).Complete(context.Background(), llm.Request{Model: "m", Stream: true})
	if err != nil || got.StopReason != "length" {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestErrorClasses(t *testing.T) {
	tests := []providertest.ErrorCase{
		{Name: "401", Reply: llmtest.Unauthorized(), Class: llm.ClassAuth, Status: 401},
		{Name: "403", Reply: llmtest.Forbidden(), Class: llm.ClassAuth, Status: 403},
		{Name: "403 quota", Reply: llmtest.ForbiddenQuota(), Class: llm.ClassQuota, Status: 403},
		{Name: "402", Reply: llmtest.PaymentRequired(), Class: llm.ClassQuota, Status: 402},
		{Name: "429 quota", Reply: llmtest.QuotaExceeded(), Class: llm.ClassQuota, Status: 429},
		{Name: "429", Reply: llmtest.RateLimited("1"), Class: llm.ClassRateLimit, Status: 429, MinRetry: time.Second},
		{Name: "404 model", Reply: llmtest.Reply{Status: 404, ErrorMessage: `model "nope" not found, try pulling it first`}, Class: llm.ClassModel, Status: 404},
		{Name: "500", Reply: llmtest.ServerError(500), Class: llm.ClassServer, Status: 500},
		{Name: "hang", Reply: llmtest.Reply{Fault: llmtest.FaultHang}, Class: llm.ClassTimeout},
		{Name: "malformed", Reply: llmtest.Reply{Text: "hello world", Fault: llmtest.FaultMalformedJSON}, Class: llm.ClassInvalidResponse},
		{Name: "truncated body", Reply: llmtest.Reply{Text: "hello world", Fault: llmtest.FaultTruncateBody}, Class: llm.ClassInvalidResponse},
		{Name: "dropped", Reply: llmtest.Reply{Fault: llmtest.FaultDropConnection}, Class: llm.ClassNetwork},
		{Name: "not done", Reply: llmtest.Reply{Body: `{"model":"m","message":{"content":"x"},"done":false}`}, Class: llm.ClassInvalidResponse},
		{Name: "truncated stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultTruncateStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "reset stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultResetStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "hang mid stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultHangMidStream}, StreamOnly: true, Class: llm.ClassTimeout},
		{Name: "error line", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultStreamError, ErrorMessage: "an error was encountered while running the model"}, StreamOnly: true, Class: llm.ClassServer},
	}
	providertest.ErrorClasses(t, tests, "", func(srv *llmtest.Server, stream bool) error {
		p := New(Options{BaseURL: srv.OllamaBaseURL(), Timeout: 300 * time.Millisecond})
		_, err := p.Complete(context.Background(), llm.Request{Model: "m", Stream: stream})
		return err
	})
}

func FuzzLine(f *testing.F) {
	f.Add([]byte(`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":4}`))
	f.Add([]byte(`{"error":"model not found"}`))
	f.Add([]byte(`{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{\"a\":1}"}}]}}`))
	p := New(Options{BaseURL: "http://127.0.0.1:1"})
	f.Fuzz(func(t *testing.T, line []byte) {
		a := &accumulator{}
		err := p.addLine(a, line)
		var e *llm.Error
		if err != nil && (!errors.As(err, &e) || e.Class == "") {
			t.Fatalf("unclassified error %v", err)
		}
		for _, c := range a.response().ToolCalls {
			if c.ID == "" || c.Arguments == "" {
				t.Fatalf("bad call %+v", c)
			}
		}
	})
}

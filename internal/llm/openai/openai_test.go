package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
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

const testKey = "sk-test-0123456789abcdef"

func newProvider(t testing.TB, srv *llmtest.Server, flavor Flavor) *Provider {
	t.Helper()
	return New(Options{Flavor: flavor, BaseURL: srv.OpenAIBaseURL(), APIKey: testKey,
		Headers: map[string]string{"X-Org": "acme"}, Timeout: 2 * time.Second})
}

func fullRequest() llm.Request {
	return llm.Request{
		Model: "gpt-test",
		Messages: []llm.Message{
			{Role: contract.RoleSystem, Content: "You are terse."},
			{Role: contract.RoleUser, Content: "Read a.txt"},
			{Role: contract.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "fs__read", Arguments: `{"path":"a.txt"`}}},
			{Role: contract.RoleTool, ToolCallID: "call_1", Content: "hello"},
			{Role: contract.RoleUser, Content: "System notice: retry", Ephemeral: true},
		},
		Tools: []llm.ToolDef{{Name: "fs__read", Description: "Read a file",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		ToolChoice:      "auto",
		Temperature:     new(0.2),
		TopP:            new(0.9),
		TopK:            new(40),
		RepeatPenalty:   new(1.1),
		MaxOutputTokens: 1024,
		Reasoning:       "high",
		ReasoningTokens: new(2048),
	}
}

// TestRequestGolden checks the exact body each flavor sends for a request
// with every parameter set, against testdata/request-FLAVOR.golden.json.
func TestRequestGolden(t *testing.T) {
	cases := []struct {
		name   string
		flavor Flavor
		mode   string
		path   string
	}{
		{"openai", FlavorOpenAI, "", "/v1/chat/completions"},
		{"openai-compatible", FlavorCompatible, "", "/v1/chat/completions"},
		{"openrouter", FlavorOpenRouter, "", "/v1/chat/completions"},
		{"openai-responses", FlavorOpenAI, ModeResponses, "/v1/responses"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Push(llmtest.Reply{Text: "ok"})
			req := fullRequest()
			req.Stream = true
			p := New(Options{Flavor: c.flavor, Mode: c.mode, BaseURL: srv.OpenAIBaseURL(), APIKey: testKey,
				Headers: map[string]string{"X-Org": "acme"}, Timeout: 2 * time.Second})
			if _, err := p.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			rec := srv.Requests()[0]
			if got := rec.Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("Authorization = %q", got)
			}
			if rec.Header.Get("X-Org") != "acme" || rec.Path != c.path {
				t.Errorf("extra header or path wrong: %v %s", rec.Header, rec.Path)
			}
			providertest.RequestGolden(t, filepath.Join("testdata", "request-"+c.name+".golden.json"), rec.Body, *update)
		})
	}
}

// TestUnsetParametersNotSent checks that nil parameters are left out.
func TestUnsetParametersNotSent(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	for _, flavor := range []Flavor{FlavorOpenAI, FlavorCompatible, FlavorOpenRouter} {
		srv.Push(llmtest.Reply{Text: "ok"})
		req := llm.Request{Model: "m", Messages: []llm.Message{{Role: contract.RoleUser, Content: "hi"}}, Reasoning: "none"}
		if _, err := New(Options{Flavor: flavor, BaseURL: srv.OpenAIBaseURL()}).Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	for i, rec := range srv.Requests() {
		body := rec.JSON()
		for _, k := range []string{"temperature", "top_p", "top_k", "repetition_penalty", "max_tokens",
			"max_completion_tokens", "reasoning_effort", "reasoning", "tools", "tool_choice", "stream", "stream_options"} {
			if _, ok := body[k]; ok {
				t.Errorf("request %d sent %q although unset: %s", i, k, rec.Body)
			}
		}
		if rec.Header.Get("Authorization") != "" {
			t.Errorf("request %d sent Authorization without a key", i)
		}
	}
}

func TestReasoningModelsDropSampling(t *testing.T) {
	tests := []struct {
		flavor   Flavor
		model    string
		sampling bool
	}{
		{FlavorOpenAI, "gpt-4o", true},
		{FlavorOpenAI, "gpt-4.1-mini", true},
		{FlavorOpenAI, "o3-mini", false},
		{FlavorOpenAI, "o1", false},
		{FlavorOpenAI, "gpt-5", false},
		{FlavorOpenAI, "gpt-5-mini-2025-08-07", false},
		{FlavorOpenAI, "gpt-5-chat-latest", true},
		{FlavorOpenAI, "omni-moderation", true},
		{FlavorCompatible, "o3-mini", true},
		{FlavorOpenRouter, "openai/o3", true},
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	for _, tt := range tests {
		p := New(Options{Flavor: tt.flavor, BaseURL: srv.OpenAIBaseURL()})
		if _, err := p.Complete(context.Background(), llm.Request{Model: tt.model, Temperature: new(0.2), TopP: new(0.9)}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		body := reqs[len(reqs)-1].JSON()
		_, hasT := body["temperature"]
		_, hasP := body["top_p"]
		if hasT != tt.sampling || hasP != tt.sampling {
			t.Errorf("%s %s: temperature sent %v, top_p sent %v; want %v", tt.flavor, tt.model, hasT, hasP, tt.sampling)
		}
	}
}

func TestComplete(t *testing.T) {
	reply := llmtest.Reply{
		Text:      "Let me look — ✓",
		Reasoning: "The user wants a file.",
		ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "fs__read", Arguments: `{"path":"a.txt","lines":[1,2,3]}`},
			{ID: "call_b", Name: "fs__bad", Arguments: `{"path": "b.txt",`},
		},
		Usage:     &llmtest.Usage{Input: 100, Output: 20, CacheRead: 900},
		ChunkSize: 3,
		Model:     "gpt-test-2026",
	}
	want := llm.Response{
		Content:   "Let me look — ✓",
		Reasoning: []contract.ReasoningPart{{Type: "reasoning", Text: "The user wants a file."}},
		ToolCalls: []llm.ToolCall{
			{ID: "call_a", Name: "fs__read", Arguments: `{"path":"a.txt","lines":[1,2,3]}`},
			{ID: "call_b", Name: "fs__bad", Arguments: `{"path": "b.txt",`},
		},
		StopReason:  "tool_calls",
		Usage:       contract.TokenUsage{InputTokens: 100, OutputTokens: 20, CachedTokens: new(900), CacheReadInputTokens: new(900), TotalTokens: 1020},
		ActualModel: "gpt-test-2026",
	}
	for _, mode := range []string{ModeChat, ModeResponses} {
		for _, stream := range []bool{false, true} {
			srv := llmtest.NewServer()
			srv.Push(reply)
			var deltas strings.Builder
			req := fullRequest()
			req.Stream = stream
			req.OnDelta = func(d llm.Delta) { deltas.WriteString(d.Text) }
			p := New(Options{Mode: mode, BaseURL: srv.OpenAIBaseURL(), APIKey: testKey})
			got, err := p.Complete(context.Background(), req)
			srv.Close()
			if err != nil {
				t.Fatalf("%s stream=%v: %v", mode, stream, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s stream=%v:\n got %+v\nwant %+v", mode, stream, got, want)
			}
			if stream && deltas.String() != want.Content {
				t.Errorf("%s deltas %q", mode, deltas.String())
			}
		}
	}
}

func TestStopReasonsAndExtras(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		stop  string
	}{
		{"stop", llmtest.Reply{Text: "done"}, "stop"},
		{"length", llmtest.Reply{Text: "cut", StopReason: "length"}, "length"},
		{"content filter", llmtest.Reply{StopReason: "content_filter"}, "content_filter"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			srv := llmtest.NewServer()
			tt.reply.Extra = map[string]any{"provider": "DeepInfra"}
			srv.Push(tt.reply)
			got, err := newProvider(t, srv, FlavorOpenRouter).Complete(context.Background(),
				llm.Request{Model: "m", Stream: stream, Messages: []llm.Message{{Role: "user", Content: "x"}}})
			srv.Close()
			if err != nil {
				t.Fatalf("%s stream=%v: %v", tt.name, stream, err)
			}
			if got.StopReason != tt.stop || got.ActualProvider != "DeepInfra" || got.Content != tt.reply.Text {
				t.Errorf("%s stream=%v: got %+v", tt.name, stream, got)
			}
		}
	}
}

func TestErrorClasses(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	tests := []providertest.ErrorCase{
		{Name: "401", Reply: llmtest.Unauthorized(), Class: llm.ClassAuth, Status: 401},
		{Name: "403", Reply: llmtest.Forbidden(), Class: llm.ClassAuth, Status: 403},
		{Name: "403 quota", Reply: llmtest.ForbiddenQuota(), Class: llm.ClassQuota, Status: 403},
		{Name: "402", Reply: llmtest.PaymentRequired(), Class: llm.ClassQuota, Status: 402},
		{Name: "429 insufficient_quota", Reply: llmtest.QuotaExceeded(), Class: llm.ClassQuota, Status: 429},
		{Name: "429 seconds", Reply: llmtest.RateLimited("2"), Class: llm.ClassRateLimit, Status: 429, MinRetry: 2 * time.Second},
		{Name: "429 date", Reply: llmtest.RateLimited(date), Class: llm.ClassRateLimit, Status: 429, MinRetry: 20 * time.Second},
		{Name: "429 bare", Reply: llmtest.RateLimited(""), Class: llm.ClassRateLimit, Status: 429},
		{Name: "500", Reply: llmtest.ServerError(500), Class: llm.ClassServer, Status: 500},
		{Name: "503", Reply: llmtest.ServerError(503), Class: llm.ClassServer, Status: 503},
		{Name: "400", Reply: llmtest.BadRequest("maximum context length exceeded"), Class: llm.ClassModel, Status: 400},
		{Name: "hang", Reply: llmtest.Reply{Fault: llmtest.FaultHang}, Class: llm.ClassTimeout},
		{Name: "malformed json", Reply: llmtest.Reply{Text: "hello there", Fault: llmtest.FaultMalformedJSON}, Class: llm.ClassInvalidResponse},
		{Name: "truncated body", Reply: llmtest.Reply{Text: "hello there", Fault: llmtest.FaultTruncateBody}, Class: llm.ClassInvalidResponse},
		{Name: "dropped connection", Reply: llmtest.Reply{Fault: llmtest.FaultDropConnection}, Class: llm.ClassNetwork},
		{Name: "200 with error", Reply: llmtest.Reply{Body: `{"error":{"message":"Insufficient credits","code":402}}`, Header: map[string]string{"Content-Type": "application/json"}}, Class: llm.ClassQuota, Status: 402},
		{Name: "empty choices", Reply: llmtest.Reply{Body: `{"id":"x","choices":[]}`}, Class: llm.ClassInvalidResponse},
		{Name: "truncated stream", Reply: llmtest.Reply{Text: "hello there friend", Fault: llmtest.FaultTruncateStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "reset stream", Reply: llmtest.Reply{Text: "hello there friend", Fault: llmtest.FaultResetStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "hang mid stream", Reply: llmtest.Reply{Text: "hello there friend", Fault: llmtest.FaultHangMidStream}, StreamOnly: true, Class: llm.ClassTimeout},
		{Name: "stream error rate", Reply: llmtest.Reply{Text: "hello there friend", Fault: llmtest.FaultStreamError, ErrorType: "rate_limit_exceeded"}, StreamOnly: true, Class: llm.ClassRateLimit},
		{Name: "stream error server", Reply: llmtest.Reply{Text: "hello there friend", Fault: llmtest.FaultStreamError, ErrorType: "server_error"}, StreamOnly: true, Class: llm.ClassServer},
	}
	for _, mode := range []string{ModeChat, ModeResponses} {
		t.Run(mode, func(t *testing.T) {
			providertest.ErrorClasses(t, tests, testKey, func(srv *llmtest.Server, stream bool) error {
				p := New(Options{Mode: mode, BaseURL: srv.OpenAIBaseURL(), APIKey: testKey, Timeout: 300 * time.Millisecond})
				_, err := p.Complete(context.Background(), llm.Request{Model: "m", Stream: stream,
					Messages: []llm.Message{{Role: "user", Content: "x"}}})
				return err
			})
		})
	}
}

// TestClientTimeout checks that the HTTP client's own timeout is a timeout
// too, not a network error.
func TestClientTimeout(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Fault: llmtest.FaultHang})
	p := New(Options{BaseURL: srv.OpenAIBaseURL(), HTTPClient: &http.Client{Timeout: 100 * time.Millisecond}})
	_, err := p.Complete(context.Background(), llm.Request{Model: "m"})
	if c := llm.AsError(err).Class; c != llm.ClassTimeout {
		t.Fatalf("class %s (%v), want timeout", c, err)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := llmtest.NewServer()
	base := srv.OpenAIBaseURL()
	srv.Close()
	_, err := New(Options{BaseURL: base}).Complete(context.Background(), llm.Request{Model: "m"})
	if c := llm.AsError(err).Class; c != llm.ClassNetwork {
		t.Fatalf("class %s (%v), want network", c, err)
	}
}

func TestAPIKeyRedacted(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + testKey + `"}}`})
	_, err := newProvider(t, srv, FlavorOpenAI).Complete(context.Background(), llm.Request{Model: "m"})
	if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("err = %v", err)
	}
}

// TestRecordedStreams replays hand-captured streams in testdata/ that
// follow the API reference's examples byte for byte in framing.
func TestRecordedStreams(t *testing.T) {
	tests := []struct {
		file string
		want llm.Response
	}{
		{"stream-tool-calls.sse", llm.Response{
			ToolCalls: []llm.ToolCall{
				{ID: "call_abc", Name: "get_weather", Arguments: `{"location": "Paris"}`},
				{ID: "call_def", Name: "get_time", Arguments: `{"tz":"CET"}`},
			},
			StopReason:  "tool_calls",
			Usage:       contract.TokenUsage{InputTokens: 52, OutputTokens: 30, CachedTokens: new(30), CacheReadInputTokens: new(30), TotalTokens: 112},
			ActualModel: "gpt-4o-2024-08-06",
		}},
		{"stream-no-done.sse", llm.Response{Content: "Hi!", StopReason: "stop", ActualModel: "qwen3"}},
	}
	for _, tt := range tests {
		srv := providertest.Replay(t, tt.file)
		got, err := New(Options{BaseURL: srv.OpenAIBaseURL()}).Complete(context.Background(), llm.Request{Model: "m", Stream: true})
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, got, tt.want)
		}
	}
}

// TestResponsesGathered replays a Responses stream whose terminal event
// carries no output list: the response is rebuilt from the deltas, and
// an incomplete status maps to the stop reason "length".
func TestResponsesGathered(t *testing.T) {
	srv := providertest.Replay(t, "responses-gathered.sse")
	got, err := New(Options{Mode: ModeResponses, BaseURL: srv.OpenAIBaseURL()}).Complete(context.Background(), llm.Request{Model: "m", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{
		Content:     "Checking",
		ToolCalls:   []llm.ToolCall{{ID: "call_X", Name: "get_weather", Arguments: `{"city":"Par`}},
		StopReason:  "length",
		Usage:       contract.TokenUsage{InputTokens: 50, OutputTokens: 16, TotalTokens: 66},
		ActualModel: "gpt-5-2025",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %+v\nwant %+v", got, want)
	}
	if p := srv.Requests()[0].Path; p != "/v1/responses" {
		t.Fatalf("path %s", p)
	}
}

func fuzzProvider() *Provider { return New(Options{BaseURL: "http://127.0.0.1:1"}) }

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"x","tool_calls":[{"id":"a","function":{"name":"n","arguments":"{"}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":9}}}`))
	f.Add([]byte(`{"error":{"code":429,"message":"slow"}}`))
	f.Add([]byte(`{"error":{"code":"insufficient_quota"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := fuzzProvider().decode(body)
		checkFuzzResult(t, resp, err)
	})
}

// The stream fuzzers are seeded with short streams. A seed of a few
// kilobytes (a recorded stream) made every new finding derived from it cost
// up to -fuzzminimizetime (60 s) to minimise, since minimising a []byte is
// quadratic in its length, and the fuzzer reports no executions meanwhile:
// the "stall". The recordings are still decoded whole by the unit tests.
func FuzzStream(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "stream-no-done.sse"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`data: {"model":"m","choices":[{"delta":{"reasoning":"r","tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\""}}]}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}

data: [DONE]

`))
	f.Add([]byte("data: {\"error\":{\"message\":\"x\",\"type\":\"rate_limit_exceeded\"}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := &http.Response{Body: io.NopCloser(bytes.NewReader(body))}
		out, err := fuzzProvider().readStream(context.Background(), resp, func(llm.Delta) {})
		checkFuzzResult(t, out, err)
	})
}

func FuzzResponsesStream(f *testing.F) {
	// Short streams, one path each (see FuzzStream for why not a whole
	// rendered reply).
	f.Add([]byte(`data: {"type":"response.output_text.delta","delta":"Hi"}

data: {"type":"response.completed","response":{"status":"completed","model":"m","output":[{"type":"message","content":[{"type":"output_text","text":"Hi"}]}]}}

`))
	f.Add([]byte(`data: {"type":"response.output_item.added","item":{"type":"function_call","id":"f","call_id":"c","name":"n"}}

data: {"type":"response.function_call_arguments.delta","item_id":"f","delta":"{}"}

data: {"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":1,"output_tokens":2}}}

`))
	f.Add([]byte(`data: {"type":"response.reasoning_summary_text.delta","delta":"r"}

data: {"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}

`))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\"}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\"}}}\n\n"))
	p := New(Options{Mode: ModeResponses, BaseURL: "http://127.0.0.1:1"})
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := &http.Response{Body: io.NopCloser(bytes.NewReader(body))}
		out, err := p.readResponsesStream(context.Background(), resp, func(llm.Delta) {})
		checkFuzzResult(t, out, err)
	})
}

func FuzzResponsesDecode(f *testing.F) {
	// A short reply, not the kilobytes of a rendered one: see FuzzStream.
	f.Add([]byte(`{"status":"completed","model":"m","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"r"}]},` +
		`{"type":"message","content":[{"type":"output_text","text":"Hi"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}],` +
		`"usage":{"input_tokens":1,"output_tokens":2}}`))
	f.Add([]byte(`{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`))
	p := New(Options{Mode: ModeResponses, BaseURL: "http://127.0.0.1:1"})
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := p.decodeResponses(body)
		checkFuzzResult(t, out, err)
	})
}

func checkFuzzResult(t *testing.T, resp llm.Response, err error) {
	t.Helper()
	if err != nil {
		var e *llm.Error
		if !errors.As(err, &e) || e.Class == "" {
			t.Fatalf("unclassified error %T %v", err, err)
		}
		return
	}
	for _, c := range resp.ToolCalls {
		if c.ID == "" {
			t.Fatalf("tool call without id: %+v", resp.ToolCalls)
		}
	}
}

package google

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

const testKey = "AIzaSy-test-0123456789"

func fullRequest() llm.Request {
	return llm.Request{
		Model: "gemini-test",
		Messages: []llm.Message{
			{Role: contract.RoleSystem, Content: "You are terse."},
			{Role: contract.RoleSystem, Content: "Second system part."},
			{Role: contract.RoleUser, Content: "Read a.txt and b.txt"},
			{Role: contract.RoleAssistant, Content: "Reading.",
				Reasoning: []contract.ReasoningPart{
					{Type: "reasoning", Text: "I should read both.", ProviderMetadata: json.RawMessage(`{"google":{"thoughtSignature":"sig-thought"}}`)},
					{Type: "reasoning", ProviderMetadata: json.RawMessage(`{"google":{"thoughtSignature":"sig-call","toolCallId":"call_1"}}`)},
					{Type: "reasoning", Text: "from another provider, dropped", ProviderMetadata: json.RawMessage(`{"anthropic":{"signature":"x"}}`)},
					{Type: "reasoning", Text: "unsigned, dropped"},
				},
				ToolCalls: []llm.ToolCall{
					{ID: "call_1", Name: "fs__read", Arguments: `{"path": "a.txt"}`},
					{ID: "call_2", Name: "fs__read", Arguments: `{"path": "b.txt"`},
				}},
			{Role: contract.RoleTool, ToolCallID: "call_1", Content: "alpha"},
			{Role: contract.RoleTool, ToolCallID: "call_2", Content: ""},
			{Role: contract.RoleSystem, Content: "Final turn: report now."},
			{Role: contract.RoleUser, Content: ""},
		},
		Tools: []llm.ToolDef{
			{Name: "fs__read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`)},
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
	p := New(Options{BaseURL: srv.GeminiBaseURL(), APIKey: testKey, Headers: map[string]string{"x-goog-user-project": "p"}})
	if _, err := p.Complete(context.Background(), fullRequest()); err != nil {
		t.Fatal(err)
	}
	rec := srv.Requests()[0]
	if rec.Path != "/v1beta/models/gemini-test:streamGenerateContent" || rec.Wire != llmtest.Gemini || !rec.Stream ||
		rec.Header.Get("x-goog-api-key") != testKey || rec.Header.Get("x-goog-user-project") != "p" ||
		rec.Header.Get("Authorization") != "" || rec.Header.Get("Accept") != "text/event-stream" {
		t.Fatalf("path %s headers %v", rec.Path, rec.Header)
	}
	providertest.RequestGolden(t, filepath.Join("testdata", "request.golden.json"), rec.Body, *update)
}

func TestURL(t *testing.T) {
	p := New(Options{BaseURL: "http://h/v1beta/"})
	tests := []struct {
		model  string
		stream bool
		want   string
	}{
		{"gemini-2.5-flash", false, "http://h/v1beta/models/gemini-2.5-flash:generateContent"},
		{"gemini-2.5-flash", true, "http://h/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"},
		{"models/gemini-pro", false, "http://h/v1beta/models/gemini-pro:generateContent"},
		{"tunedModels/mine-1", false, "http://h/v1beta/tunedModels/mine-1:generateContent"},
		{"../x?key=1#f", false, "http://h/v1beta/models/..%2Fx%3Fkey=1%23f:generateContent"},
		{"models/..", false, "http://h/v1beta/models/%2E%2E:generateContent"},
	}
	for _, tt := range tests {
		if got := p.url(tt.model, tt.stream); got != tt.want {
			t.Errorf("url(%q, %v) = %s, want %s", tt.model, tt.stream, got, tt.want)
		}
	}
	if New(Options{}).url("m", false) != DefaultBaseURL+"/models/m:generateContent" {
		t.Errorf("default base URL not used")
	}
}

func TestParameters(t *testing.T) {
	tests := []struct {
		name   string
		req    llm.Request
		absent []string
		want   string
	}{
		{"unset are not sent", llm.Request{}, []string{"generationConfig", "tools", "toolConfig", "systemInstruction"}, ""},
		{"sampling", llm.Request{Temperature: new(0.2), TopP: new(0.9), TopK: new(5), MaxOutputTokens: 100}, nil,
			`"generationConfig":{"temperature":0.2,"topP":0.9,"topK":5,"maxOutputTokens":100}`},
		{"level maps to budget", llm.Request{Reasoning: "medium"}, nil, `"thinkingConfig":{"thinkingBudget":8192,"includeThoughts":true}`},
		{"tokens win over level", llm.Request{Reasoning: "low", ReasoningTokens: new(3000)}, nil, `"thinkingBudget":3000,"includeThoughts":true`},
		{"none turns thinking off", llm.Request{Reasoning: "none"}, nil, `"thinkingConfig":{"thinkingBudget":0}`},
		{"zero tokens turn thinking off", llm.Request{Reasoning: "high", ReasoningTokens: new(0)}, nil, `"thinkingConfig":{"thinkingBudget":0}`},
		{"auto", llm.Request{ToolChoice: "auto", Tools: []llm.ToolDef{{Name: "t"}}}, nil,
			`"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}`},
		{"tool without schema", llm.Request{Tools: []llm.ToolDef{{Name: "t"}}}, []string{"toolConfig"},
			`"parametersJsonSchema":{"type":"object","properties":{}}`},
		{"no tool choice without tools", llm.Request{ToolChoice: "required"}, []string{"toolConfig", "tools"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Push(llmtest.Reply{Text: "ok"})
			req := tt.req
			req.Model = "m"
			req.Messages = []llm.Message{{Role: "user", Content: "hi"}}
			if _, err := New(Options{BaseURL: srv.GeminiBaseURL()}).Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			rec := srv.Requests()[0]
			body := rec.JSON()
			for _, k := range tt.absent {
				if _, ok := body[k]; ok {
					t.Errorf("%q sent: %s", k, rec.Body)
				}
			}
			if !strings.Contains(string(rec.Body), tt.want) {
				t.Errorf("body lacks %s: %s", tt.want, rec.Body)
			}
		})
	}
}

func TestComplete(t *testing.T) {
	reply := llmtest.Reply{
		Text:               "Reading both — ✓",
		Reasoning:          "Two files to read.",
		ReasoningSignature: "sigXYZ",
		ToolCalls: []llmtest.ToolCall{
			{Name: "fs__read", Arguments: `{"path":"a.txt","n":[1,2]}`},
			{ID: "fc-2", Name: "fs__list", Arguments: `{}`},
		},
		Usage:     &llmtest.Usage{Input: 12, Output: 40, CacheRead: 1000, Reasoning: 7},
		ChunkSize: 4,
		Model:     "gemini-test-002",
	}
	want := llm.Response{
		Content: "Reading both — ✓",
		Reasoning: []contract.ReasoningPart{
			{Type: "reasoning", Text: "Two files to read."},
			{Type: "reasoning", ProviderMetadata: json.RawMessage(`{"google":{"thoughtSignature":"sigXYZ","toolCallId":"call_1"}}`)},
		},
		ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "fs__read", Arguments: `{"path":"a.txt","n":[1,2]}`},
			{ID: "fc-2", Name: "fs__list", Arguments: `{}`},
		},
		StopReason:  "STOP",
		Usage:       contract.TokenUsage{InputTokens: 12, OutputTokens: 47, CachedTokens: new(1000), CacheReadInputTokens: new(1000), TotalTokens: 1059},
		ActualModel: "gemini-test-002",
	}
	providertest.Complete(t, reply, want, func(srv *llmtest.Server, req llm.Request) (llm.Response, error) {
		return New(Options{BaseURL: srv.GeminiBaseURL(), APIKey: testKey}).Complete(context.Background(), req)
	})
}

// TestSignatureReplay checks that the thought signature read with a
// function call goes back on that call when the message is replayed (the
// unsigned thought summary is not sent back: the API needs only the
// signatures), and that the tool result becomes a functionResponse named
// after its call.
func TestSignatureReplay(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Reasoning: "hmm", ReasoningSignature: "sig-1", ToolCalls: []llmtest.ToolCall{{Name: "t", Arguments: `{"a":1}`}}},
		llmtest.Reply{Text: "done"})
	p := New(Options{BaseURL: srv.GeminiBaseURL()})
	msgs := []llm.Message{{Role: "user", Content: "go"}}
	first, err := p.Complete(context.Background(), llm.Request{Model: "m", Messages: msgs, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, llm.Message{Role: "assistant", Reasoning: first.Reasoning, ToolCalls: first.ToolCalls},
		llm.Message{Role: "tool", ToolCallID: first.ToolCalls[0].ID, Content: "r"})
	if _, err := p.Complete(context.Background(), llm.Request{Model: "m", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	var sent genRequest
	if err := srv.Requests()[1].Decode(&sent); err != nil {
		t.Fatal(err)
	}
	m := sent.Contents[1]
	if m.Role != "model" || len(m.Parts) != 1 || m.Parts[0].FunctionCall == nil || m.Parts[0].ThoughtSignature != "sig-1" ||
		string(m.Parts[0].FunctionCall.Args) != `{"a":1}` {
		t.Fatalf("replayed model content %s", mustJSON(m))
	}
	u := sent.Contents[2]
	if u.Role != "user" || u.Parts[0].FunctionResponse == nil || u.Parts[0].FunctionResponse.Name != "t" ||
		u.Parts[0].FunctionResponse.Response["content"] != "r" {
		t.Fatalf("tool result %s", mustJSON(u))
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestErrorClasses(t *testing.T) {
	quotaBody := `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generate_content_free_tier_requests"}]},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"46.5s"}]}}`
	keyBody := `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`
	jsonHeader := map[string]string{"Content-Type": "application/json"}
	tests := []providertest.ErrorCase{
		{Name: "429 resource exhausted", Reply: llmtest.Reply{Status: 429, Body: quotaBody}, Class: llm.ClassRateLimit, Status: 429, MinRetry: 46 * time.Second},
		{Name: "429 retry-after", Reply: llmtest.RateLimited("3"), Class: llm.ClassRateLimit, Status: 429, MinRetry: 3 * time.Second},
		{Name: "402 prepaid credit spent", Reply: llmtest.PaymentRequired(), Class: llm.ClassQuota, Status: 402},
		{Name: "400 key not valid", Reply: llmtest.Reply{Status: 400, Body: keyBody}, Class: llm.ClassAuth, Status: 400},
		{Name: "400 invalid argument", Reply: llmtest.BadRequest("Request contains an invalid argument."), Class: llm.ClassModel, Status: 400},
		{Name: "400 array body", Reply: llmtest.Reply{Status: 400, Body: `[{"error":{"code":400,"message":"bad","status":"FAILED_PRECONDITION"}}]`}, Class: llm.ClassModel, Status: 400},
		{Name: "401", Reply: llmtest.Unauthorized(), Class: llm.ClassAuth, Status: 401},
		{Name: "403", Reply: llmtest.Forbidden(), Class: llm.ClassAuth, Status: 403},
		{Name: "404", Reply: llmtest.Reply{Status: 404, ErrorMessage: "models/x is not found"}, Class: llm.ClassModel, Status: 404},
		{Name: "500", Reply: llmtest.ServerError(500), Class: llm.ClassServer, Status: 500},
		{Name: "503", Reply: llmtest.ServerError(503), Class: llm.ClassServer, Status: 503},
		{Name: "504 deadline", Reply: llmtest.ServerError(504), Class: llm.ClassTimeout, Status: 504},
		{Name: "plain 500 body", Reply: llmtest.Reply{Status: 500, Body: "oops"}, Class: llm.ClassServer, Status: 500},
		{Name: "hang", Reply: llmtest.Reply{Fault: llmtest.FaultHang}, Class: llm.ClassTimeout},
		{Name: "malformed", Reply: llmtest.Reply{Text: "hello world", Fault: llmtest.FaultMalformedJSON}, Class: llm.ClassInvalidResponse},
		{Name: "truncated body", Reply: llmtest.Reply{Text: "hello world", Fault: llmtest.FaultTruncateBody}, Class: llm.ClassInvalidResponse},
		{Name: "dropped", Reply: llmtest.Reply{Fault: llmtest.FaultDropConnection}, Class: llm.ClassNetwork},
		{Name: "no finish reason", Reply: llmtest.Reply{Body: `{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}`, Header: jsonHeader}, Class: llm.ClassInvalidResponse},
		{Name: "prompt blocked", Reply: llmtest.Reply{Body: `{"promptFeedback":{"blockReason":"SAFETY"}}`, Header: jsonHeader}, Class: llm.ClassModel},
		{Name: "answer blocked", Reply: llmtest.Reply{Text: "partial", StopReason: "SAFETY"}, Class: llm.ClassModel},
		{Name: "recitation", Reply: llmtest.Reply{StopReason: "RECITATION"}, Class: llm.ClassModel},
		{Name: "malformed function call", Reply: llmtest.Reply{StopReason: "MALFORMED_FUNCTION_CALL"}, Class: llm.ClassInvalidResponse},
		{Name: "error in a 200 body", Reply: llmtest.Reply{Body: `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`, Header: jsonHeader}, Class: llm.ClassServer},
		{Name: "truncated stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultTruncateStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "reset stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultResetStream}, StreamOnly: true, Class: llm.ClassInvalidResponse},
		{Name: "hang mid stream", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultHangMidStream}, StreamOnly: true, Class: llm.ClassTimeout},
		{Name: "unavailable chunk", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultStreamError, ErrorType: "UNAVAILABLE"}, StreamOnly: true, Class: llm.ClassServer},
		{Name: "exhausted chunk", Reply: llmtest.Reply{Text: "hello there my friend", Fault: llmtest.FaultStreamError, ErrorType: "RESOURCE_EXHAUSTED", ErrorMessage: "quota"}, StreamOnly: true, Class: llm.ClassRateLimit},
	}
	providertest.ErrorClasses(t, tests, testKey, func(srv *llmtest.Server, stream bool) error {
		p := New(Options{BaseURL: srv.GeminiBaseURL(), APIKey: testKey, Timeout: 300 * time.Millisecond})
		_, err := p.Complete(context.Background(), llm.Request{Model: "m", Stream: stream, Messages: []llm.Message{{Role: "user", Content: "x"}}})
		return err
	})
}

// TestBlockedNamesTheReason checks that a blocked prompt's error says so
// and names the reason, so result.error tells the user why.
func TestBlockedNamesTheReason(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Body: `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9}}`,
		Header: map[string]string{"Content-Type": "application/json"}})
	_, err := New(Options{BaseURL: srv.GeminiBaseURL()}).Complete(context.Background(), llm.Request{Model: "m"})
	if e := llm.AsError(err); e == nil || e.Message != "google: prompt blocked by the API (PROHIBITED_CONTENT)" {
		t.Fatalf("err = %v", err)
	}
}

// TestRecordedStream replays a stream written after the API reference's
// example: CRLF-framed chunks, thought summaries, text, a function call
// with its thought signature, and usage with cached and thought tokens.
func TestRecordedStream(t *testing.T) {
	srv := providertest.Replay(t, "stream-function-call.sse")
	got, err := New(Options{BaseURL: srv.GeminiBaseURL()}).Complete(context.Background(), llm.Request{Model: "gemini-2.5-flash", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{
		Content: "Let me check the weather in Boston.",
		Reasoning: []contract.ReasoningPart{
			{Type: "reasoning", Text: "**Planning the lookup** The user wants the weather."},
			{Type: "reasoning", ProviderMetadata: json.RawMessage(`{"google":{"thoughtSignature":"CiQBVKhc7ut+wsQ7jf1Z","toolCallId":"call_1"}}`)},
		},
		ToolCalls:   []llm.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"location":"Boston, MA","unit":"celsius"}`}},
		StopReason:  "STOP",
		Usage:       contract.TokenUsage{InputTokens: 52, OutputTokens: 61, CachedTokens: new(1024), CacheReadInputTokens: new(1024), TotalTokens: 1137},
		ActualModel: "gemini-2.5-flash",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %+v\nwant %+v", got, want)
	}
}

// TestMeter checks that the bytes sent and read land on the context's
// meter, for the engine's telemetry.
func TestMeter(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Push(llmtest.Reply{Text: "hello"})
	var m llm.Meter
	ctx := llm.WithMeter(context.Background(), &m)
	if _, err := New(Options{BaseURL: srv.GeminiBaseURL()}).Complete(ctx, llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	sent, received := m.Bytes()
	want := llmtest.Render(llmtest.Gemini, false, llmtest.Reply{Text: "hello", Model: "m"})
	if sent != int64(len(srv.Requests()[0].Body)) || received != int64(len(want)) {
		t.Fatalf("meter %d/%d, want %d/%d", sent, received, len(srv.Requests()[0].Body), len(want))
	}
}

func fuzzProvider() *Provider { return New(Options{BaseURL: "http://127.0.0.1:1"}) }

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"n","args":{"x":1}},"thoughtSignature":"s"},{"text":"t","thought":true}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1}}`))
	f.Add([]byte(`{"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}`))
	f.Add([]byte(`{"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := fuzzProvider().decode(body)
		providertest.Classified(t, err)
	})
}

func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}]}\r\n\r\ndata: {\"candidates\":[{\"finishReason\":\"STOP\"}]}\r\n\r\n"))
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\",\"thought\":true,\"thoughtSignature\":\"s\"},{\"functionCall\":{\"name\":\"f\"}}]},\"finishReason\":\"STOP\"}]}\n\n"))
	f.Add([]byte("data: {\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"x.RetryInfo\",\"retryDelay\":\"1s\"}]}}\n\n"))
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

// FuzzClassifyHTTP checks that any error body classifies without panic,
// keeps the status, and never quotes the key.
func FuzzClassifyHTTP(f *testing.F) {
	f.Add(429, []byte(`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}`))
	f.Add(400, []byte(`[{"error":{"status":"INVALID_ARGUMENT","message":"API key not valid `+testKey+`"}}]`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := classifyHTTP(status, nil, body, []string{testKey})
		if e == nil || e.Class == "" || e.Status != status || e.RetryAfter < 0 {
			t.Fatalf("classifyHTTP(%d) = %+v", status, e)
		}
		if strings.Contains(e.Message, testKey) {
			t.Fatalf("key in message %q", e.Message)
		}
	})
}

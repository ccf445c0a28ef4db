package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func msg(role, content string) llm.Message { return llm.Message{Role: role, Content: content} }

// history returns a request prompt that has reached turn t: a system
// message, the user prompt and t-1 assistant/tool pairs.
func history(system, user string, t int) []llm.Message {
	m := []llm.Message{msg(contract.RoleSystem, system), msg(contract.RoleUser, user)}
	for i := 1; i < t; i++ {
		m = append(m, msg(contract.RoleAssistant, ""), llm.Message{Role: contract.RoleTool, ToolCallID: fmt.Sprint(i), Content: "ok"})
	}
	return m
}

func mustParse(t *testing.T, s string) *Provider {
	t.Helper()
	sc, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return New(sc)
}

func classOf(err error) llm.Class {
	if err == nil {
		return ""
	}
	return llm.AsError(err).Class
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		n       int
		wantErr string
	}{
		{"one object", `{"id":"a","turns":[{"turn":1,"response":{"kind":"text","assistantText":"x"}}]}`, 1, ""},
		{"array", `[{"id":"a","turns":[]},{"id":"b","turns":[]}]`, 2, ""},
		{"empty array", `[]`, 0, "holds no scenario"},
		{"duplicate id", `[{"id":"a"},{"id":"a"}]`, 0, "duplicate scenario id"},
		{"turn zero", `{"id":"a","turns":[{"turn":0,"response":{"kind":"text"}}]}`, 0, "must be ≥1"},
		{"turn twice", `{"id":"a","turns":[{"turn":1,"response":{"kind":"text"}},{"turn":1,"response":{"kind":"text"}}]}`, 0, "appears twice"},
		{"unknown kind", `{"id":"a","turns":[{"turn":1,"response":{"kind":"poem"}}]}`, 0, "unknown response kind"},
		{"unknown failure", `{"id":"a","turns":[{"turn":1,"failureStatus":"bad","response":{"kind":"text"}}]}`, 0, "unknown failureStatus"},
		{"bad reasoning expectation", `{"id":"a","turns":[{"turn":1,"expectedReasoning":"maybe","response":{"kind":"text"}}]}`, 0, "expectedReasoning"},
		{"final without content", `{"id":"a","turns":[{"turn":1,"response":{"kind":"final-report"}}]}`, 0, "needs reportContent"},
		{"call without name", `{"id":"a","turns":[{"turn":1,"response":{"kind":"tool-call","toolCalls":[{}]}}]}`, 0, "toolName is required"},
		{"bad expectation type", `{"id":"a","turns":[{"turn":1,"expectedTopP":"high","response":{"kind":"text"}}]}`, 0, "number or null"},
		{"bad reasoning type", `{"id":"a","turns":[{"turn":1,"response":{"kind":"text","reasoning":5}}]}`, 0, "reasoning"},
		{"not json", `{"id":`, 0, "decode scenario"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(sc) != tt.n {
				t.Fatalf("got %d scenarios, want %d", len(sc), tt.n)
			}
		})
	}
}

func TestExpectNull(t *testing.T) {
	var tu Turn
	if err := json.Unmarshal([]byte(`{"turn":1,"expectedTopK":null,"expectedTopP":0.5}`), &tu); err != nil {
		t.Fatal(err)
	}
	if !tu.ExpectedTopK.Set || !tu.ExpectedTopK.Null {
		t.Errorf("expectedTopK null: got %+v", tu.ExpectedTopK)
	}
	if !tu.ExpectedTopP.Set || tu.ExpectedTopP.Null || tu.ExpectedTopP.Value != 0.5 {
		t.Errorf("expectedTopP 0.5: got %+v", tu.ExpectedTopP)
	}
	if tu.ExpectedTemperature.Set {
		t.Errorf("absent expectedTemperature is Set")
	}
}

func TestTurnRoundTrip(t *testing.T) {
	in := `{"turn":2,"response":{"kind":"text"},"expectedTopK":null,"expectedTopP":0.5}`
	var tu Turn
	if err := json.Unmarshal([]byte(in), &tu); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(tu)
	if err != nil {
		t.Fatal(err)
	}
	var back Turn
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back.ExpectedTemperature.Set || !back.ExpectedTopK.Null || back.ExpectedTopP.Value != 0.5 || !back.ExpectedTopP.Set {
		t.Fatalf("round trip changed the expectations: %s", out)
	}
}

const selection = `[
 {"id":"by-model","turns":[{"turn":1,"response":{"kind":"text","assistantText":"model"}}]},
 {"id":"say hello","turns":[{"turn":1,"response":{"kind":"text","assistantText":"prompt"}}]}
]`

func TestSelectScenario(t *testing.T) {
	p := mustParse(t, selection)
	only := mustParse(t, `{"id":"solo","turns":[{"turn":1,"response":{"kind":"text","assistantText":"solo"}}]}`)
	tests := []struct {
		name  string
		p     *Provider
		model string
		user  string
		want  string
	}{
		{"model name wins", p, "by-model", "say hello", "model"},
		{"first user message trimmed", p, "gpt-x", "  say hello\n", "prompt"},
		{"only scenario", only, "any", "anything", "solo"},
		{"no match", p, "gpt-x", "other", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tt.p.Complete(context.Background(), llm.Request{Model: tt.model, Messages: history("sys", tt.user, 1)})
			if tt.want == "" {
				if classOf(err) != llm.ClassFatal || !strings.HasPrefix(llm.AsError(err).Message, "test-llm:") {
					t.Fatalf("err = %v, want a fatal test-llm: error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != tt.want {
				t.Fatalf("content = %q, want %q", resp.Content, tt.want)
			}
		})
	}
}

func TestTurnNumberFromAssistantMessages(t *testing.T) {
	p := mustParse(t, `{"id":"s","turns":[
		{"turn":1,"response":{"kind":"text","assistantText":"one"}},
		{"turn":3,"response":{"kind":"text","assistantText":"three"}}]}`)
	for turn, want := range map[int]string{1: "one", 3: "three", 2: ""} {
		resp, err := p.Complete(context.Background(), llm.Request{Model: "s", Messages: history("sys", "u", turn)})
		if want == "" {
			if classOf(err) != llm.ClassFatal || !strings.Contains(err.Error(), "no entry for turn 2") {
				t.Errorf("turn %d: err = %v, want fatal no entry", turn, err)
			}
			continue
		}
		if err != nil || resp.Content != want {
			t.Errorf("turn %d: got %q, %v; want %q", turn, resp.Content, err, want)
		}
	}
}

func TestExpectations(t *testing.T) {
	p := mustParse(t, `{"id":"s","systemPromptMustInclude":["terse"],"turns":[
		{"turn":1,"expectedTools":["fs__read","agent__final_report"],
		 "expectedTemperature":0.2,"expectedTopP":null,"expectedTopK":40,"expectedMaxOutputTokens":1000,
		 "expectedReasoning":"enabled",
		 "response":{"kind":"text","assistantText":"ok"}}]}`)
	good := func() llm.Request {
		return llm.Request{
			Model: "s", Messages: history("be terse", "u", 1),
			Session:     llm.SessionInfo{OfferedTools: []string{"fs__read"}},
			Temperature: new(0.2), TopK: new(40), MaxOutputTokens: 1000, Reasoning: "high",
		}
	}
	tests := []struct {
		name    string
		mutate  func(*llm.Request)
		wantErr string
	}{
		{"all met", func(*llm.Request) {}, ""},
		{"tool offered natively", func(r *llm.Request) {
			r.Session.OfferedTools = nil
			r.Tools = []llm.ToolDef{{Name: "fs__read"}}
		}, ""},
		{"reasoning by tokens", func(r *llm.Request) { r.Reasoning = ""; r.ReasoningTokens = new(2048) }, ""},
		{"system fragment missing", func(r *llm.Request) { r.Messages[0].Content = "verbose" }, `does not include "terse"`},
		{"tool missing", func(r *llm.Request) { r.Session.OfferedTools = []string{"other"} }, `"fs__read" is not offered`},
		{"temperature differs", func(r *llm.Request) { r.Temperature = new(1.0) }, "temperature is 1, expected 0.2"},
		{"temperature unsent", func(r *llm.Request) { r.Temperature = nil }, "temperature was not sent"},
		{"topP sent but null expected", func(r *llm.Request) { r.TopP = new(0.9) }, "topP is 0.9, expected it not to be sent"},
		{"topK differs", func(r *llm.Request) { r.TopK = new(1) }, "topK is 1"},
		{"max tokens differ", func(r *llm.Request) { r.MaxOutputTokens = 5 }, "maxOutputTokens is 5"},
		{"reasoning none", func(r *llm.Request) { r.Reasoning = "none" }, "reasoning is disabled, expected enabled"},
		{"reasoning tokens zero", func(r *llm.Request) { r.ReasoningTokens = new(0) }, "reasoning is disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := good()
			tt.mutate(&req)
			_, err := p.Complete(context.Background(), req)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			e := llm.AsError(err)
			if e == nil || e.Class != llm.ClassFatal || !e.Fatal() {
				t.Fatalf("err = %v, want fatal", err)
			}
			if !strings.HasPrefix(e.Message, "test-llm: ") || !strings.Contains(e.Message, tt.wantErr) {
				t.Fatalf("message %q, want prefix test-llm: and %q", e.Message, tt.wantErr)
			}
		})
	}
}

func TestFailureStatuses(t *testing.T) {
	tests := []struct {
		status     string
		class      llm.Class
		httpStatus int
		retry      time.Duration
		fatal      bool
	}{
		{"", llm.ClassModel, 0, 0, false},
		{"model_error", llm.ClassModel, 0, 0, false},
		{"network_error", llm.ClassNetwork, 0, 0, false},
		{"timeout", llm.ClassTimeout, 0, 0, false},
		{"invalid_response", llm.ClassInvalidResponse, 0, 0, false},
		{"rate_limit", llm.ClassRateLimit, 429, 250 * time.Millisecond, false},
		{"auth_error", llm.ClassAuth, 401, 0, true},
		{"quota_exceeded", llm.ClassQuota, 402, 0, true},
		{"server_error", llm.ClassServer, 500, 0, false},
	}
	for _, tt := range tests {
		t.Run("status="+tt.status, func(t *testing.T) {
			p := mustParse(t, fmt.Sprintf(`{"id":"s","turns":[{"turn":1,"failuresBeforeSuccess":1,
				"failureStatus":%q,"failureRetryAfterMs":250,"failureMessage":"boom %s",
				"response":{"kind":"text","assistantText":"ok"}}]}`, tt.status, tt.status))
			req := llm.Request{Model: "s", Messages: history("s", "u", 1), Session: llm.SessionInfo{ProviderName: "p"}}
			_, err := p.Complete(context.Background(), req)
			e := llm.AsError(err)
			if e == nil {
				t.Fatal("first attempt succeeded, want a failure")
			}
			if e.Class != tt.class || e.Status != tt.httpStatus || e.RetryAfter != tt.retry || e.Fatal() != tt.fatal {
				t.Fatalf("got %+v, want class %s status %d retry %v fatal %v", e, tt.class, tt.httpStatus, tt.retry, tt.fatal)
			}
			if e.Message != "boom "+tt.status {
				t.Fatalf("message %q", e.Message)
			}
			if resp, err := p.Complete(context.Background(), req); err != nil || resp.Content != "ok" {
				t.Fatalf("second attempt: %q, %v", resp.Content, err)
			}
		})
	}
}

func TestFailureCountersPerProviderAndTurn(t *testing.T) {
	p := mustParse(t, `{"id":"s","turns":[
		{"turn":1,"failuresBeforeSuccess":2,"response":{"kind":"text","assistantText":"t1"}},
		{"turn":2,"failuresBeforeSuccess":1,"failureMessage":"Simulated failure","response":{"kind":"text","assistantText":"t2"}}]}`)
	call := func(provider string, turn int) error {
		_, err := p.Complete(context.Background(), llm.Request{Model: "s", Messages: history("s", "u", turn),
			Session: llm.SessionInfo{ProviderName: provider}})
		return err
	}
	steps := []struct {
		provider string
		turn     int
		fail     bool
	}{
		{"a", 1, true}, {"b", 1, true}, {"a", 1, true}, {"a", 1, false}, {"a", 1, false},
		{"b", 1, true}, {"b", 1, false},
		{"a", 2, true}, {"a", 2, false}, {"b", 2, true}, {"b", 2, false},
	}
	for i, s := range steps {
		err := call(s.provider, s.turn)
		if (err != nil) != s.fail {
			t.Fatalf("step %d (%s, turn %d): err = %v, want failure %v", i, s.provider, s.turn, err, s.fail)
		}
		if err != nil && !strings.Contains(err.Error(), "Simulated failure") {
			t.Fatalf("step %d: default message missing: %v", i, err)
		}
	}
}

// TestConcurrentCounters checks that concurrent attempts share the
// counters safely: exactly failuresBeforeSuccess attempts fail per
// provider name.
func TestConcurrentCounters(t *testing.T) {
	p := mustParse(t, `{"id":"s","turns":[{"turn":1,"failuresBeforeSuccess":5,"response":{"kind":"text","assistantText":"ok"}}]}`)
	var mu sync.Mutex
	failed := map[string]int{}
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		name := fmt.Sprint("p", i%2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Complete(context.Background(), llm.Request{Model: "s", Session: llm.SessionInfo{ProviderName: name}})
			if err != nil {
				mu.Lock()
				failed[name]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failed["p0"] != 5 || failed["p1"] != 5 {
		t.Fatalf("failures per provider %v, want 5 each", failed)
	}
}

func TestSpecExample(t *testing.T) {
	p, err := Open(filepath.Join("testdata", "spec-example.json"))
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{
		Model: "echo-then-report", Messages: history("You are terse.", "go", 1),
		Temperature: new(0.2), Session: llm.SessionInfo{ProviderName: "test", Transport: TransportXMLFinal, Nonce: "3f9a0c1e",
			Format: "markdown", OfferedTools: []string{"t__echo"}},
	}
	_, err = p.Complete(context.Background(), req)
	e := llm.AsError(err)
	if e == nil || e.Class != llm.ClassRateLimit || e.RetryAfter != 100*time.Millisecond {
		t.Fatalf("attempt 1 = %v, want rate limit with 100ms", err)
	}
	resp, err := p.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call-1-1", Name: "t__echo", Arguments: `{"text":"ping"}`}}
	if fmt.Sprint(resp.ToolCalls) != fmt.Sprint(want) || resp.StopReason != "tool_calls" {
		t.Fatalf("turn 1 = %+v", resp)
	}
	req.Messages = history("You are terse.", "go", 2)
	req.Temperature = nil
	resp, err = p.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantTag := `<ai-agent-3f9a0c1e-FINAL tool="agent__final_report" format="markdown"># Done</ai-agent-3f9a0c1e-FINAL>`
	if resp.Content != wantTag || resp.StopReason != "stop" || resp.Usage.TotalTokens != 96 {
		t.Fatalf("turn 2 = %+v", resp)
	}
	req.Temperature = new(0.7)
	req.Messages = history("You are terse.", "go", 1)
	if _, err := p.Complete(context.Background(), req); classOf(err) != llm.ClassFatal {
		t.Fatalf("wrong temperature: err = %v, want fatal", err)
	}
}

// TestRenderGolden renders every turn of testdata/render.json under each
// transport and compares with testdata/render.golden.
func TestRenderGolden(t *testing.T) {
	p, err := Open(filepath.Join("testdata", "render.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, tr := range []string{TransportNative, TransportXMLFinal, TransportXML} {
		for turn := 1; turn <= 5; turn++ {
			s := llm.SessionInfo{ProviderName: "t", Transport: tr, Format: "json"}
			if tr != TransportNative {
				s.Nonce = "0badcafe"
				s.Slots = []string{"0004", "0badcafe-0005"}
			}
			resp, err := p.Complete(context.Background(), llm.Request{Model: "kinds", Messages: history("s", "u", turn), Session: s})
			if err != nil {
				t.Fatalf("%s turn %d: %v", tr, turn, err)
			}
			fmt.Fprintf(&out, "== %s turn %d\n", tr, turn)
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(resp); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden := filepath.Join("testdata", "render.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, out.Bytes()) {
		t.Fatalf("render differs from %s (go test -update rewrites it):\n%s", golden, lineDiff(string(want), out.String()))
	}
}

func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, a, c)
		}
	}
	return b.String()
}

func TestStreamDeltas(t *testing.T) {
	text := "héllo wörld — a longer text that spans several chunks ✓"
	p := mustParse(t, fmt.Sprintf(`{"id":"s","turns":[{"turn":1,"response":{"kind":"text","assistantText":%q,"reasoning":"hmm"}}]}`, text))
	var got, reasoning strings.Builder
	n := 0
	resp, err := p.Complete(context.Background(), llm.Request{Model: "s", Messages: history("s", "u", 1), Stream: true,
		OnDelta: func(d llm.Delta) { got.WriteString(d.Text); reasoning.WriteString(d.Reasoning); n++ }})
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != text || resp.Content != text || reasoning.String() != "hmm" || n < 4 {
		t.Fatalf("deltas %q (%d), reasoning %q, content %q", got.String(), n, reasoning.String(), resp.Content)
	}
}

func TestCancelledContext(t *testing.T) {
	p := mustParse(t, `{"id":"s","turns":[{"turn":1,"response":{"kind":"text","assistantText":"x"}}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Complete(ctx, llm.Request{Model: "s", Messages: history("s", "u", 1)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"spec-example.json", "render.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"id":"a","turns":[{"turn":1,"response":{"kind":"tool-call","toolCalls":[{"toolName":"x","arguments":[1]}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data)
		if err != nil {
			return
		}
		p := New(sc)
		for _, tr := range []string{TransportNative, TransportXML} {
			for turn := 1; turn <= 3; turn++ {
				_, err := p.Complete(context.Background(), llm.Request{Model: sc[0].ID, Messages: history("s", "u", turn),
					Session: llm.SessionInfo{Transport: tr, Nonce: "abcd1234", Slots: []string{"0001"}}})
				if err != nil && llm.AsError(err).Class == "" {
					t.Fatalf("unclassified error %v", err)
				}
			}
		}
	})
}

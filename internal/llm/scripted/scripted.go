// Package scripted is the test-llm provider of the ai-agent spec (§13): it
// replays a scenario file instead of calling a model, so users and tests can
// run sessions deterministically with no network.
//
// A request selects its scenario by model name, then by the first user
// message, then as the only scenario of the file. Its turn is T = 1 + the
// number of assistant messages in the request, so a turn whose attempts all
// failed replays the same T. Expectations that do not hold fail with a
// [llm.ClassFatal] error whose message starts "test-llm:".
package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// FinalReportTool is the native name of the final-report tool.
const FinalReportTool = "agent__final_report"

// FailureClass is how a scripted failureStatus is reported.
type FailureClass struct {
	Class  llm.Class
	Status int
}

// FailureClasses maps each failureStatus of a scenario turn to the class of
// the error it produces. "server_error" is a salve addition (HTTP 500).
var FailureClasses = map[string]FailureClass{
	"model_error":      {llm.ClassModel, 0},
	"network_error":    {llm.ClassNetwork, 0},
	"timeout":          {llm.ClassTimeout, 0},
	"invalid_response": {llm.ClassInvalidResponse, 0},
	"rate_limit":       {llm.ClassRateLimit, 429},
	"auth_error":       {llm.ClassAuth, 401},
	"quota_exceeded":   {llm.ClassQuota, 402},
	"server_error":     {llm.ClassServer, 500},
}

// Provider replays scenarios. Its failure counters (failuresBeforeSuccess)
// are kept per (scenario, turn, provider name) for the life of the
// Provider, so the engine should keep one Provider per scenario file for the
// whole process. It is safe for concurrent use.
type Provider struct {
	scenarios []Scenario
	byID      map[string]int

	mu       sync.Mutex
	attempts map[counterKey]int
}

type counterKey struct {
	scenario string
	turn     int
	provider string
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for already validated scenarios (see [Parse]).
func New(scenarios []Scenario) *Provider {
	p := &Provider{scenarios: scenarios, byID: map[string]int{}, attempts: map[counterKey]int{}}
	for i, s := range scenarios {
		if _, dup := p.byID[s.ID]; !dup {
			p.byID[s.ID] = i
		}
	}
	return p
}

// Open loads a scenario file and returns its Provider.
func Open(path string) (*Provider, error) {
	sc, err := Load(path)
	if err != nil {
		return nil, err
	}
	return New(sc), nil
}

// Complete plays the scripted answer of the request's turn.
func (p *Provider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, llm.ClassifyTransport(ctx, "test-llm", err)
	}
	sc, err := p.selectScenario(req)
	if err != nil {
		return llm.Response{}, err
	}
	t := 1
	for _, m := range req.Messages {
		if m.Role == contract.RoleAssistant {
			t++
		}
	}
	turn := sc.turn(t)
	if turn == nil {
		return llm.Response{}, fatalf("scenario %q has no entry for turn %d", sc.ID, t)
	}
	if err := checkExpectations(sc, turn, req); err != nil {
		return llm.Response{}, err
	}
	if p.shouldFail(counterKey{sc.ID, t, req.Session.ProviderName}, turn.FailuresBeforeSuccess) {
		return llm.Response{}, failure(turn)
	}
	resp, err := render(t, turn.Response, req.Session)
	if err != nil {
		return llm.Response{}, err
	}
	if req.Stream && req.OnDelta != nil {
		stream(resp, req.OnDelta)
	}
	return resp, nil
}

func (p *Provider) selectScenario(req llm.Request) (*Scenario, error) {
	if i, ok := p.byID[req.Model]; ok {
		return &p.scenarios[i], nil
	}
	for _, m := range req.Messages {
		if m.Role != contract.RoleUser {
			continue
		}
		if i, ok := p.byID[strings.TrimSpace(m.Content)]; ok {
			return &p.scenarios[i], nil
		}
		break
	}
	if len(p.scenarios) == 1 {
		return &p.scenarios[0], nil
	}
	return nil, fatalf("no scenario matches model %q or the first user message", req.Model)
}

func (s *Scenario) turn(t int) *Turn {
	for i := range s.Turns {
		if s.Turns[i].Turn == t {
			return &s.Turns[i]
		}
	}
	return nil
}

// shouldFail counts one attempt and reports whether it is among the first
// n of its key.
func (p *Provider) shouldFail(k counterKey, n int) bool {
	if n <= 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	done := p.attempts[k]
	p.attempts[k] = done + 1
	return done < n
}

func failure(t *Turn) *llm.Error {
	fc := FailureClasses[t.failureStatus()]
	e := &llm.Error{Class: fc.Class, Status: fc.Status, Message: t.failureMessage()}
	if fc.Class == llm.ClassRateLimit {
		e.RetryAfter = time.Duration(t.FailureRetryAfterMs) * time.Millisecond
	}
	return e
}

func fatalf(format string, args ...any) *llm.Error {
	return &llm.Error{Class: llm.ClassFatal, Message: "test-llm: " + fmt.Sprintf(format, args...)}
}

// checkExpectations returns the first expectation of the scenario or turn
// that the request breaks, as a fatal error.
func checkExpectations(sc *Scenario, t *Turn, req llm.Request) error {
	var system strings.Builder
	for _, m := range req.Messages {
		if m.Role == contract.RoleSystem {
			system.WriteString(m.Content)
			system.WriteByte('\n')
		}
	}
	for _, frag := range sc.SystemPromptMustInclude {
		if !strings.Contains(system.String(), frag) {
			return fatalf("scenario %q turn %d: system prompt does not include %q", sc.ID, t.Turn, frag)
		}
	}
	offered := map[string]bool{}
	for _, name := range req.Session.OfferedTools {
		offered[name] = true
	}
	for _, d := range req.Tools {
		offered[d.Name] = true
	}
	for _, name := range t.ExpectedTools {
		if !strings.HasPrefix(name, "agent__") && !offered[name] {
			return fatalf("scenario %q turn %d: expected tool %q is not offered", sc.ID, t.Turn, name)
		}
	}
	checks := []struct {
		name string
		want Expect
		got  *float64
	}{
		{"temperature", t.ExpectedTemperature, req.Temperature},
		{"topP", t.ExpectedTopP, req.TopP},
		{"topK", t.ExpectedTopK, intPtrToFloat(req.TopK)},
		{"maxOutputTokens", t.ExpectedMaxOutputTokens, positiveToFloat(req.MaxOutputTokens)},
	}
	for _, c := range checks {
		if msg := c.want.mismatch(c.got); msg != "" {
			return fatalf("scenario %q turn %d: %s %s", sc.ID, t.Turn, c.name, msg)
		}
	}
	if t.ExpectedReasoning != "" {
		got := "disabled"
		if reasoningEnabled(req) {
			got = "enabled"
		}
		if got != t.ExpectedReasoning {
			return fatalf("scenario %q turn %d: reasoning is %s, expected %s", sc.ID, t.Turn, got, t.ExpectedReasoning)
		}
	}
	return nil
}

// mismatch describes how got breaks the expectation, or returns "".
func (e Expect) mismatch(got *float64) string {
	switch {
	case !e.Set:
		return ""
	case e.Null && got != nil:
		return fmt.Sprintf("is %s, expected it not to be sent", fmtNum(*got))
	case e.Null:
		return ""
	case got == nil:
		return fmt.Sprintf("was not sent, expected %s", fmtNum(e.Value))
	case math.Abs(*got-e.Value) > 1e-9:
		return fmt.Sprintf("is %s, expected %s", fmtNum(*got), fmtNum(e.Value))
	}
	return ""
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func intPtrToFloat(p *int) *float64 {
	if p == nil {
		return nil
	}
	f := float64(*p)
	return &f
}

func positiveToFloat(n int) *float64 {
	if n <= 0 {
		return nil
	}
	f := float64(n)
	return &f
}

// reasoningEnabled reports whether the request asks for reasoning: a level
// other than "none", or a positive reasoning token budget.
func reasoningEnabled(req llm.Request) bool {
	if req.ReasoningTokens != nil {
		return *req.ReasoningTokens > 0
	}
	return req.Reasoning != "" && req.Reasoning != "none"
}

// stream delivers the response to OnDelta in small pieces, as a streaming
// provider would: reasoning first, then the text in chunks of at most
// streamChunk bytes cut at rune boundaries.
func stream(resp llm.Response, on func(llm.Delta)) {
	for _, r := range resp.Reasoning {
		if r.Text != "" {
			on(llm.Delta{Reasoning: r.Text})
		}
	}
	for _, piece := range chunks(resp.Content, streamChunk) {
		on(llm.Delta{Text: piece})
	}
}

const streamChunk = 16

func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		if i == 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func compactJSON(raw json.RawMessage) (string, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", err
	}
	return b.String(), nil
}

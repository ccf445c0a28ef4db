package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/safefile"
)

// Scenario is one scripted conversation of a scenario file
// (docs/contracts/ai-agent-cli.md §13).
type Scenario struct {
	// ID selects the scenario: it is matched against the model name, then
	// against the first user message.
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	// SystemPromptMustInclude lists fragments every request's system
	// message must contain.
	SystemPromptMustInclude []string `json:"systemPromptMustInclude,omitempty"`
	Turns                   []Turn   `json:"turns"`
}

// Turn scripts the answer to turn T of a scenario and what the request for
// that turn must carry.
type Turn struct {
	Turn     int      `json:"turn"`
	Response Response `json:"response"`
	// ExpectedTools are tool names the request must offer, natively or in
	// XML-NEXT. Names starting with "agent__" are not checked.
	ExpectedTools []string `json:"expectedTools,omitempty"`
	// The Expected* numbers, when present, must equal the request's
	// parameter; a JSON null means the parameter must not be sent.
	ExpectedTemperature     Expect `json:"expectedTemperature,omitzero"`
	ExpectedTopP            Expect `json:"expectedTopP,omitzero"`
	ExpectedTopK            Expect `json:"expectedTopK,omitzero"`
	ExpectedMaxOutputTokens Expect `json:"expectedMaxOutputTokens,omitzero"`
	// ExpectedReasoning is "", "enabled" or "disabled".
	ExpectedReasoning string `json:"expectedReasoning,omitempty"`
	// FailuresBeforeSuccess is how many attempts of this turn fail, per
	// provider name, before the response is given.
	FailuresBeforeSuccess int `json:"failuresBeforeSuccess,omitempty"`
	// FailureStatus is one of the keys of [FailureClasses]; empty means
	// "model_error".
	FailureStatus string `json:"failureStatus,omitempty"`
	// FailureRetryAfterMs is the Retry-After of a "rate_limit" failure.
	FailureRetryAfterMs int `json:"failureRetryAfterMs,omitempty"`
	// FailureMessage is the failure's message; empty means
	// "Simulated failure".
	FailureMessage string `json:"failureMessage,omitempty"`
}

// Response kinds.
const (
	KindToolCall    = "tool-call"
	KindFinalReport = "final-report"
	KindText        = "text"
)

// Response is the scripted answer of a turn.
type Response struct {
	// Kind is KindToolCall, KindFinalReport or KindText.
	Kind          string `json:"kind"`
	AssistantText string `json:"assistantText,omitempty"`
	// FinishReason is reported as the stop reason; empty means
	// "tool_calls" for tool calls and "stop" otherwise.
	FinishReason string     `json:"finishReason,omitempty"`
	TokenUsage   *Usage     `json:"tokenUsage,omitempty"`
	Reasoning    Reasoning  `json:"reasoning,omitempty"`
	ToolCalls    []ToolCall `json:"toolCalls,omitempty"`

	// ReportFormat defaults to the session's format.
	ReportFormat      string          `json:"reportFormat,omitempty"`
	ReportContent     *string         `json:"reportContent,omitempty"`
	ReportContentJSON json.RawMessage `json:"reportContentJson,omitempty"`
	ReportMessages    json.RawMessage `json:"reportMessages,omitempty"`
	Metadata          json.RawMessage `json:"metadata,omitempty"`
}

// ToolCall is one scripted tool call.
type ToolCall struct {
	ToolName string `json:"toolName"`
	// Arguments is a JSON object, sent compacted.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// RawArguments, when set, is sent verbatim instead of Arguments, so a
	// scenario can send malformed JSON.
	RawArguments *string `json:"rawArguments,omitempty"`
	// CallID defaults to "call-T-N" (N from 1).
	CallID string `json:"callId,omitempty"`
}

// Usage is a scripted token usage.
type Usage struct {
	InputTokens  int  `json:"inputTokens"`
	OutputTokens int  `json:"outputTokens"`
	CachedTokens *int `json:"cachedTokens,omitempty"`
	// TotalTokens defaults to InputTokens + OutputTokens.
	TotalTokens *int `json:"totalTokens,omitempty"`
}

// ReasoningPart is one scripted reasoning block.
type ReasoningPart struct {
	Text             string          `json:"text"`
	ProviderMetadata json.RawMessage `json:"providerMetadata,omitempty"`
}

// Reasoning is the scripted reasoning: in JSON a string or an array of
// {text, providerMetadata?}.
type Reasoning []ReasoningPart

// UnmarshalJSON accepts a string or an array of parts.
func (r *Reasoning) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*r = nil
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*r = Reasoning{{Text: s}}
		return nil
	}
	var parts []ReasoningPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("reasoning: want a string or an array of {text}: %w", err)
	}
	*r = parts
	return nil
}

// Expect is an optional numeric expectation: absent (Set false), null
// (Null true: the parameter must not be sent) or a number.
type Expect struct {
	Set   bool
	Null  bool
	Value float64
}

// UnmarshalJSON records that the key was present and whether it was null.
func (e *Expect) UnmarshalJSON(b []byte) error {
	e.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		e.Null = true
		return nil
	}
	if err := json.Unmarshal(b, &e.Value); err != nil {
		return fmt.Errorf("want a number or null: %w", err)
	}
	return nil
}

// MarshalJSON writes null or the number. Turn's fields are omitzero, so
// an unset Expect is left out and a Turn survives a round trip.
func (e Expect) MarshalJSON() ([]byte, error) {
	if !e.Set || e.Null {
		return []byte("null"), nil
	}
	return json.Marshal(e.Value)
}

// Load reads and validates a scenario file.
func Load(path string) ([]Scenario, error) {
	data, err := safefile.Read(path, safefile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("test-llm: read scenario file: %w", err)
	}
	sc, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// Parse decodes a scenario file, one scenario object or an array of them,
// and validates it: unique ids, turns ≥1 and unique per scenario, known
// response kinds and failure statuses.
func Parse(data []byte) ([]Scenario, error) {
	data = bytes.TrimSpace(data)
	var scenarios []Scenario
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &scenarios); err != nil {
			return nil, fmt.Errorf("test-llm: decode scenarios: %w", err)
		}
	default:
		var one Scenario
		if err := json.Unmarshal(data, &one); err != nil {
			return nil, fmt.Errorf("test-llm: decode scenario: %w", err)
		}
		scenarios = []Scenario{one}
	}
	if len(scenarios) == 0 {
		return nil, errors.New("test-llm: the scenario file holds no scenario")
	}
	seen := map[string]bool{}
	for i := range scenarios {
		s := &scenarios[i]
		if seen[s.ID] {
			return nil, fmt.Errorf("test-llm: duplicate scenario id %q", s.ID)
		}
		seen[s.ID] = true
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("test-llm: scenario %q: %w", s.ID, err)
		}
	}
	return scenarios, nil
}

func (s *Scenario) validate() error {
	turns := map[int]bool{}
	for _, t := range s.Turns {
		if t.Turn < 1 {
			return fmt.Errorf("turn %d: turn must be ≥1", t.Turn)
		}
		if turns[t.Turn] {
			return fmt.Errorf("turn %d appears twice", t.Turn)
		}
		turns[t.Turn] = true
		if err := t.validate(); err != nil {
			return fmt.Errorf("turn %d: %w", t.Turn, err)
		}
	}
	return nil
}

func (t *Turn) validate() error {
	if t.FailuresBeforeSuccess < 0 {
		return errors.New("failuresBeforeSuccess must be ≥0")
	}
	if _, ok := FailureClasses[t.failureStatus()]; !ok {
		return fmt.Errorf("unknown failureStatus %q", t.FailureStatus)
	}
	switch t.ExpectedReasoning {
	case "", "enabled", "disabled":
	default:
		return fmt.Errorf("expectedReasoning must be enabled or disabled, not %q", t.ExpectedReasoning)
	}
	r := t.Response
	switch r.Kind {
	case KindText:
	case KindToolCall:
		for i, c := range r.ToolCalls {
			if strings.TrimSpace(c.ToolName) == "" {
				return fmt.Errorf("toolCalls[%d]: toolName is required", i)
			}
			if c.RawArguments == nil && len(c.Arguments) > 0 && !json.Valid(c.Arguments) {
				return fmt.Errorf("toolCalls[%d]: arguments is not JSON", i)
			}
		}
	case KindFinalReport:
		if r.ReportContent == nil && len(r.ReportContentJSON) == 0 && len(r.ReportMessages) == 0 {
			return errors.New("final-report needs reportContent, reportContentJson or reportMessages")
		}
	default:
		return fmt.Errorf("unknown response kind %q", r.Kind)
	}
	return nil
}

func (t *Turn) failureStatus() string {
	if t.FailureStatus == "" {
		return "model_error"
	}
	return t.FailureStatus
}

func (t *Turn) failureMessage() string {
	if t.FailureMessage == "" {
		return "Simulated failure"
	}
	return t.FailureMessage
}

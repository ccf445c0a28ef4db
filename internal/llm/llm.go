// Package llm defines the one interface behind which every LLM provider sits:
// a turn request in, a turn response out. Subpackages implement it per wire
// API (internal/llm/openai, internal/llm/anthropic, internal/llm/ollama, internal/llm/google) and for scripted replay
// (internal/llm/scripted). The session engine (package agent) owns retries, fallback,
// accounting and the context guard; providers only speak their wire format
// and classify failures into [Error] values.
package llm

import (
	"context"
	"encoding/json"

	"github.com/salve-dev/salve/contract"
)

// Provider sends one request to one model and returns its response.
// Implementations must be safe for concurrent use by many sessions.
type Provider interface {
	// Complete performs one attempt. It returns a *Error (see [AsError])
	// for every failure, classified so the engine can decide between
	// retrying, cycling to the next target and failing the session.
	Complete(ctx context.Context, req Request) (Response, error)
}

// Message is one entry of the prompt sent to a model.
type Message struct {
	// Role is contract.RoleSystem, RoleUser, RoleAssistant or RoleTool.
	Role    string
	Content string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID links a tool message to its call.
	ToolCallID string
	// Reasoning is the assistant's reasoning, replayed to providers that
	// need it (Anthropic thinking signatures).
	Reasoning []contract.ReasoningPart
	// Ephemeral marks a message sent on this request only and never kept
	// in the conversation (retry notices, XML-NEXT). Providers send it like
	// any other message.
	Ephemeral bool
}

// ToolCall is one tool call requested by a model.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is the raw argument text exactly as the model sent it; it
	// may be malformed JSON, which the engine repairs or rejects.
	Arguments string
}

// ToolDef is a tool offered natively to the model.
type ToolDef struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema object.
	InputSchema json.RawMessage
}

// Request is one attempt's input. Nil pointer parameters are not sent.
type Request struct {
	// Model is the model name within the provider.
	Model    string
	Messages []Message
	Tools    []ToolDef
	// ToolChoice is "", "auto" or "required".
	ToolChoice      string
	Temperature     *float64
	TopP            *float64
	TopK            *int
	RepeatPenalty   *float64
	MaxOutputTokens int
	// Reasoning is "", "none", "minimal", "low", "medium" or "high".
	Reasoning       string
	ReasoningTokens *int
	// Caching is "full" or "none" (Anthropic prompt caching).
	Caching string
	// Stream selects the provider's streaming wire mode.
	Stream bool
	// OnDelta, when set with Stream, receives text as it arrives.
	OnDelta func(Delta)
	// Session describes the session to providers that need it (the
	// scripted test-llm provider renders XML tags with the nonce).
	Session SessionInfo
}

// SessionInfo is what a provider may know about the session of a request.
type SessionInfo struct {
	// ProviderName is the configured provider name of this target.
	ProviderName string
	// Transport is "native", "xml" or "xml-final".
	Transport string
	// Nonce is the session's XML nonce (empty in native).
	Nonce string
	// Format is the session's output format.
	Format string
	// Slots lists the numbered XML slot ids advertised on this turn.
	Slots []string
	// OfferedTools names every tool offered on this turn, natively or in
	// XML-NEXT.
	OfferedTools []string
}

// Delta is a piece of a streamed response.
type Delta struct {
	Text      string
	Reasoning string
}

// Response is one attempt's output.
type Response struct {
	Content   string
	ToolCalls []ToolCall
	Reasoning []contract.ReasoningPart
	// StopReason is the provider's finish reason as reported ("stop",
	// "tool_calls", "end_turn", "length", "max_tokens"…).
	StopReason string
	Usage      contract.TokenUsage
	// ActualProvider and ActualModel are what the provider reports it used,
	// when it says.
	ActualProvider string
	ActualModel    string
	CostUSD        *float64
}

// Package agent is the ai-agent session engine (docs/contracts/ai-agent.md):
// the turn loop, retries and round-robin cycling over the provider targets,
// tool orchestration with its budgets, the final report, the three tool
// transports (native, xml-final, xml), accounting and the conversation.
//
// The engine depends only on the llm.Provider and tools.Provider interfaces.
// Part 2 of the runtime plugs in through Options: more tool providers (MCP
// servers, REST tools, sub-agents), a Queuer for per-tool concurrency queues
// and a ContextGuard for the context window contract.
package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tooloutput"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// Transports (docs/contracts/ai-agent.md §11;
// docs/contracts/ai-agent-cli.md §12).
const (
	TransportNative   = "native"
	TransportXML      = "xml"
	TransportXMLFinal = "xml-final"
)

// Defaults are the run-time defaults of docs/contracts/ai-agent-cli.md §3.
const (
	DefaultMaxTurns             = 10
	DefaultMaxRetries           = 3
	DefaultMaxToolCallsPerTurn  = 10
	DefaultLLMTimeout           = 600 * time.Second
	DefaultToolTimeout          = 300 * time.Second
	DefaultToolResponseMaxBytes = 12288
	DefaultMaxOutputTokens      = 16384
)

// Params are the sampling and reasoning parameters of a request. Nil
// pointers are not sent (docs/contracts/ai-agent-cli.md §3, UNSET).
type Params struct {
	Temperature     *float64
	TopP            *float64
	TopK            *int
	RepeatPenalty   *float64
	MaxOutputTokens int
	Reasoning       string
	ReasoningTokens *int
	Caching         string
}

// Target is one provider/model pair of the fallback list.
type Target struct {
	// Provider is the configured provider name (accounting "provider").
	Provider string
	// Model is the model name within the provider.
	Model string
	// Client performs the requests.
	Client llm.Provider
	// Params are the session parameters with this model's overrides
	// already applied.
	Params Params
	// ToolChoice is "", "auto" or "required" (native transport only).
	ToolChoice string
	// ContextWindow and ContextWindowBufferTokens describe the model, for
	// the context guard.
	ContextWindow             int
	ContextWindowBufferTokens int
	// Tokenizer is the model's tokenizer setting, for the context guard.
	Tokenizer string
}

// Trace holds the multi-agent tracing ids copied into every accounting
// entry (docs/contracts/ai-agent.md §4).
type Trace struct {
	AgentID     string
	CallPath    string
	TxnID       string
	ParentTxnID string
	OriginTxnID string
}

// Queuer bounds the concurrency of tools bound to a queue
// (docs/contracts/ai-agent.md §1, "MCP Tool Queues"). Acquire blocks until a
// slot of the named queue is free and returns the function that frees it,
// the time waited and the queue depth seen on arrival. A nil Queuer means no
// queues.
type Queuer interface {
	Acquire(ctx context.Context, queue string) (release func(), waited time.Duration, depth int, err error)
}

// QueueLoader is implemented by a Queuer that reports a queue's load, for
// telemetry (ai_agent_queue_in_use, ai_agent_queue_depth): the slots held,
// the calls waiting and the queue's bound, now.
type QueueLoader interface {
	Load(queue string) (inUse, waiting, capacity int)
}

// GuardTurn describes the request about to be sent, for the context guard's
// turn_preflight.
type GuardTurn struct {
	Target   Target
	Messages []llm.Message
	Tools    []llm.ToolDef
	Final    bool
}

// ContextGuard enforces the context window contract
// (docs/contracts/ai-agent.md §2). The engine calls it at the two trigger
// points; a nil guard never fires.
type ContextGuard interface {
	// TurnPreflight runs before each LLM attempt. On a turn that is not
	// final, true forces the final turn: the engine restricts the tools to
	// the final report, records the context_window_exceeded reason and
	// calls TurnPreflight again with the reduced request and t.Final set.
	// It runs on final turns too, with t.Final set: after the engine
	// forced the final turn and restricted the tools it is the guard's
	// re-evaluation of the shrunk request; on a final turn the result is
	// ignored and the session proceeds best-effort.
	TurnPreflight(t GuardTurn) (forceFinal bool)
	// ToolPreflight runs before a tool output is committed. It returns
	// false to drop the output, which becomes the overflow stub.
	ToolPreflight(tool, output string) (keep bool)
	// Committed records the usage of a successful LLM response.
	Committed(target Target, usage llm.Response)
}

// GuardMeasure is the numbers of one activation of the context guard, in
// tokens: the tightest limit, the projection that exceeded it, and what
// was left under the limit before the item that tripped it (a tool
// output, or the turn's new messages), which may be negative.
type GuardMeasure struct {
	Limit, Projected, Remaining int
}

// GuardMeasurer is implemented by a ContextGuard that reports the numbers
// of its last activation (a dropped tool output or a forced final turn),
// for telemetry (ai_agent_context_guard_remaining_tokens). The engine asks
// right after an activation; with tool calls running at once, it gets the
// latest one's.
type GuardMeasurer interface {
	LastActivation() (GuardMeasure, bool)
}

// Options configures one session. The zero value of each limit takes the
// default of docs/contracts/ai-agent-cli.md §3.
type Options struct {
	SystemPrompt string
	UserPrompt   string
	// History holds earlier user and assistant messages of a conversation
	// (a headend's chat history); they go between the system prompt and
	// the user prompt, and are part of the result's conversation.
	History []contract.Message
	// Resume, when set, continues a saved conversation with its turns and
	// accounting.
	Resume *Resume
	// Targets is the fallback list; at least one is required.
	Targets []Target

	MaxTurns             int
	MaxRetries           int
	MaxToolCallsPerTurn  int
	LLMTimeout           time.Duration
	ToolTimeout          time.Duration
	ToolResponseMaxBytes int
	// NoToolResponseLimit disables truncation (toolResponseMaxBytes 0).
	NoToolResponseLimit bool
	// ToolOutput is the toolOutput section: enabled, an oversized tool
	// output is kept under a handle for the tool_output tool instead of
	// being truncated.
	ToolOutput tooloutput.Config

	// Format is the session's canonical output format (see Formats).
	Format string
	// Schema is the JSON Schema of content_json for the json format.
	Schema json.RawMessage
	// SchemaCompiler compiles Schema and every tool's input schema; nil
	// means BasicSchemas.
	SchemaCompiler SchemaCompiler
	// Transport is native, xml or xml-final (the default).
	Transport string
	Stream    bool

	// Tools are the tool providers of the session (MCP, REST, sub-agents).
	Tools []tools.Provider
	// ToolFilter, when set, offers only the providers' tools it returns
	// true for (an agent's toolsAllowed and toolsDenied); the internal
	// tools are never filtered. Nil offers every tool.
	ToolFilter func(tools.Tool) bool
	// Batch enables agent__batch; Progress enables agent__progress_report
	// (offered only when there is a non-internal tool).
	Batch    bool
	Progress bool
	// Routes are a router's destinations, by agent name: the session
	// offers router__handoff-to on every turn, the final one included,
	// and a successful call ends it after that turn, successful and
	// without a final report (Session.Route names the destination).
	// Empty offers no router.
	Routes []string

	Queuer Queuer
	Guard  ContextGuard
	// ToolCache, when set, reuses MCP and REST tool outputs.
	ToolCache ToolCache
	Trace     Trace

	// Telemetry and cost (docs/ai-agent.md "Telemetry and cost"):
	// Observer receives the session's events (nil records nothing);
	// Headend names the headend that asked for the session ("" is the
	// CLI); Pricer fills costUsd where the provider reports none;
	// MaxCostUSD caps the session's cost (0 is no cap) and Budgets are
	// caps shared with other sessions (a headend's).
	Observer   Observer
	Headend    string
	Pricer     Pricer
	MaxCostUSD float64
	Budgets    []*Budget

	// Nonce fixes the XML nonce; empty draws a random one.
	Nonce string
	// Logger receives logs; nil discards them.
	Logger *slog.Logger
	// Progress output (progress reports, streamed text) goes here; nil
	// discards it.
	ProgressOut io.Writer
	// Sleep waits between attempts; nil uses a timer honouring ctx. Tests
	// inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (o *Options) withDefaults() {
	if o.MaxTurns <= 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 1
	}
	if o.MaxToolCallsPerTurn <= 0 {
		o.MaxToolCallsPerTurn = DefaultMaxToolCallsPerTurn
	}
	if o.LLMTimeout <= 0 {
		o.LLMTimeout = DefaultLLMTimeout
	}
	if o.ToolTimeout <= 0 {
		o.ToolTimeout = DefaultToolTimeout
	}
	if o.ToolResponseMaxBytes <= 0 && !o.NoToolResponseLimit {
		o.ToolResponseMaxBytes = DefaultToolResponseMaxBytes
	}
	if o.NoToolResponseLimit {
		o.ToolResponseMaxBytes = 0
	}
	if o.Format == "" {
		o.Format = FormatMarkdown
	}
	if o.Transport == "" {
		o.Transport = TransportXMLFinal
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.ProgressOut == nil {
		o.ProgressOut = io.Discard
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Observer == nil {
		o.Observer = nopObserver{}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

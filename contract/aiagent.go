package contract

import "encoding/json"

// AIAgentResult is the result document of an ai-agent session
// (docs/contracts/ai-agent.md §2; docs/contracts/ai-agent-cli.md §8.1).
// Every path of a session returns one.
type AIAgentResult struct {
	// Success is true exactly when a model-provided final report was accepted.
	Success bool `json:"success"`
	// Error is set exactly when Success is false, and never empty.
	Error string `json:"error,omitempty"`
	// FinalReport is set whenever Success is true, and for synthetic failures.
	FinalReport *FinalReport `json:"finalReport,omitempty"`
	// Conversation is the permanent conversation, without ephemeral messages.
	Conversation []Message `json:"conversation"`
	// Accounting lists every LLM request and tool execution in order.
	Accounting []AccountingEntry `json:"accounting"`
}

// Final report statuses (docs/contracts/ai-agent.md §5). The system sets
// them, never the model.
const (
	ReportSuccess = "success"
	ReportFailure = "failure"
)

// Synthetic failure reasons (docs/contracts/ai-agent-cli.md §8.2).
const (
	ReasonMaxTurns          = "max_turns_exhausted"
	ReasonContextWindow     = "context_window_exceeded"
	ReasonFinalReportFailed = "final_report_tool_failed"
)

// FinalReport is a session's report (docs/contracts/ai-agent.md §5;
// docs/contracts/ai-agent-cli.md §8.2).
type FinalReport struct {
	// Status is ReportSuccess or ReportFailure, set from the report's source.
	Status string `json:"status"`
	// Format is always the session's output format.
	Format string `json:"format"`
	// Content is used by text formats, sub-agent and synthetic failures.
	Content *string `json:"content,omitempty"`
	// ContentJSON is used by the json format, kept as received.
	ContentJSON json.RawMessage `json:"content_json,omitempty"`
	// Messages is used by slack-block-kit: each is {"blocks":[…]}.
	Messages []json.RawMessage `json:"messages,omitempty"`
	// Metadata is the model's metadata, or the synthetic report's reason.
	Metadata map[string]any `json:"metadata,omitempty"`
	// TS is the Unix time in milliseconds when the report was captured.
	TS int64 `json:"ts"`
}

// Message roles (docs/contracts/ai-agent.md §6).
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// NoticeXMLPast marks the user message that carries XML tool results.
const NoticeXMLPast = "xml-past"

// Message is one conversation entry (docs/contracts/ai-agent-cli.md §8.3).
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls is set on assistant messages that call tools.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID links a tool message to its call.
	ToolCallID string           `json:"toolCallId,omitempty"`
	Reasoning  []ReasoningPart  `json:"reasoning,omitempty"`
	NoticeType string           `json:"noticeType,omitempty"`
	Metadata   *MessageMetadata `json:"metadata,omitempty"`
}

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Parameters is the JSON object of arguments.
	Parameters json.RawMessage `json:"parameters"`
}

// ReasoningPart is one block of model reasoning; Type is always "reasoning".
type ReasoningPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// ProviderMetadata keeps provider signatures.
	ProviderMetadata json.RawMessage `json:"providerMetadata,omitempty"`
}

// MessageMetadata describes the request that produced an assistant message.
type MessageMetadata struct {
	Provider  string     `json:"provider"`
	Model     string     `json:"model"`
	Tokens    TokenUsage `json:"tokens"`
	Timestamp int64      `json:"timestamp"`
}

// TokenUsage counts the tokens of one LLM request
// (docs/contracts/ai-agent.md §4).
type TokenUsage struct {
	InputTokens           int  `json:"inputTokens"`
	OutputTokens          int  `json:"outputTokens"`
	CachedTokens          *int `json:"cachedTokens,omitempty"`
	CacheReadInputTokens  *int `json:"cacheReadInputTokens,omitempty"`
	CacheWriteInputTokens *int `json:"cacheWriteInputTokens,omitempty"`
	TotalTokens           int  `json:"totalTokens"`
}

// Accounting entry kinds and statuses (docs/contracts/ai-agent.md §4).
const (
	AccountingLLM  = "llm"
	AccountingTool = "tool"
	AccountingOK   = "ok"
	AccountingFail = "failed"
)

// AccountingEntry is one LLM request or tool execution
// (docs/contracts/ai-agent.md §4; docs/contracts/ai-agent-cli.md §8.4). Type
// selects which fields are set: Provider, Model, Tokens and StopReason for
// "llm"; MCPServer, Command, CharactersIn, CharactersOut, Source and Queue
// for "tool".
type AccountingEntry struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	// Latency is the duration in milliseconds.
	Latency int64 `json:"latency"`
	// Timestamp is Unix milliseconds at the start.
	Timestamp int64  `json:"timestamp"`
	Error     string `json:"error,omitempty"`

	Provider       string      `json:"provider,omitempty"`
	Model          string      `json:"model,omitempty"`
	Tokens         *TokenUsage `json:"tokens,omitempty"`
	StopReason     string      `json:"stopReason,omitempty"`
	CostUSD        *float64    `json:"costUsd,omitempty"`
	ActualProvider string      `json:"actualProvider,omitempty"`
	ActualModel    string      `json:"actualModel,omitempty"`

	MCPServer     string `json:"mcpServer,omitempty"`
	Command       string `json:"command,omitempty"`
	CharactersIn  *int   `json:"charactersIn,omitempty"`
	CharactersOut *int   `json:"charactersOut,omitempty"`
	// Source is "native" or "xml".
	Source      string `json:"source,omitempty"`
	Queue       string `json:"queue,omitempty"`
	QueueWaitMs *int64 `json:"queueWaitMs,omitempty"`
	QueueDepth  *int   `json:"queueDepth,omitempty"`

	AgentID     string `json:"agentId,omitempty"`
	CallPath    string `json:"callPath,omitempty"`
	TxnID       string `json:"txnId,omitempty"`
	ParentTxnID string `json:"parentTxnId,omitempty"`
	OriginTxnID string `json:"originTxnId,omitempty"`
}

package telemetry

import (
	"github.com/salve-dev/salve/internal/agent"
)

// Ops of a Message.
const (
	OpSession  = "session"
	OpTurn     = "turn"
	OpLLM      = "llm"
	OpTool     = "tool"
	OpEnd      = "end"
	OpQueue    = "queue"
	OpGuard    = "guard"
	OpReport   = "report"
	OpCollapse = "collapse"
	OpMCP      = "mcp"
	OpLog      = "log"
)

// MCPEvent is a change of a supervised (headend) MCP server's state.
type MCPEvent struct {
	// Agent is the headend agent whose server it is; Server its name.
	Agent  string `json:"agent"`
	Server string `json:"server"`
	Up     bool   `json:"up"`
	// Restart is the outcome of the restart attempt the event reports:
	// RestartSuccess, RestartError, or "" for none.
	Restart string `json:"restart,omitempty"`
	// Error says why the server is down.
	Error string `json:"error,omitempty"`
}

// Outcomes of MCPEvent.Restart, the status label of the restarts metric.
const (
	RestartSuccess = "success"
	RestartError   = "error"
)

// Message is one line of the helper's input after the Settings line: one
// Observer call. A start op (session, turn, llm, tool) opens step ID under
// step Parent (0 is none); OpEnd closes step ID with the field of its
// kind; the other ops are events inside step Parent.
type Message struct {
	Op     string `json:"op"`
	ID     uint64 `json:"id,omitempty"`
	Parent uint64 `json:"parent,omitempty"`

	Session  *agent.SessionInfo `json:"session,omitempty"`
	Turn     int                `json:"turn,omitempty"`
	LLM      *agent.LLMTarget   `json:"llm,omitempty"`
	ToolName string             `json:"tool,omitempty"`

	SessionEnd *agent.SessionEnd `json:"sessionEnd,omitempty"`
	LLMEnd     *agent.LLMEvent   `json:"llmEnd,omitempty"`
	ToolEnd    *agent.ToolEvent  `json:"toolEnd,omitempty"`

	Queue  *agent.QueueEvent       `json:"queue,omitempty"`
	Guard  *agent.GuardEvent       `json:"guard,omitempty"`
	Report *agent.FinalReportEvent `json:"report,omitempty"`
	Reason string                  `json:"reason,omitempty"`
	MCP    *MCPEvent               `json:"mcp,omitempty"`
	Log    *LogRecord              `json:"log,omitempty"`
}

// Ready is the helper's one line of output once it runs: the bound
// Prometheus address, the warning to print, or why it could not start.
type Ready struct {
	Addr    string `json:"addr,omitempty"`
	Warning string `json:"warning,omitempty"`
	Error   string `json:"error,omitempty"`
}

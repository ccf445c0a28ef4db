// Package tools defines the interface behind which every tool source of the
// agent runtime sits: MCP servers (internal/agent/tools/mcp), REST tools (internal/agent/tools/rest) and
// the engine's internal tools. The session engine (package agent) owns the
// guarantees around a call (maxToolCallsPerTurn, toolTimeout, truncation,
// the context guard, accounting); a Provider only lists and calls tools.
package tools

import (
	"context"
	"encoding/json"
	"errors"
)

// ErrTimeout is wrapped by a Call that the provider cut short by a time
// limit of its own (an MCP server's `requestTimeoutMs`); the engine reports
// it like its own toolTimeout, as "(tool failed: timeout)".
var ErrTimeout = errors.New("timeout")

// Kind says where a tool comes from; it decides the accounting mcpServer.
type Kind string

// Tool kinds.
const (
	KindMCP      Kind = "mcp"
	KindREST     Kind = "rest"
	KindInternal Kind = "internal"
	KindAgent    Kind = "agent"
	// KindInProcess is a tool the program that runs the engine serves
	// from its own process (the heal's agent tier: its worktree tools).
	KindInProcess Kind = "in-process"
)

// Tool describes one callable tool.
type Tool struct {
	// Name is the exposed name: SERVER__TOOL, rest__NAME, agent__NAME.
	Name string
	// LocalName is the name inside its server, for MCP tools.
	LocalName string
	// Server is the accounting mcpServer: the MCP server name, "rest" or
	// "agent".
	Server      string
	Kind        Kind
	Description string
	// InputSchema is a JSON Schema object for the arguments.
	InputSchema json.RawMessage
	// Queue names the concurrency queue the tool is bound to.
	Queue string
}

// Result is a tool's output.
type Result struct {
	// Text is the output as the model will see it (before truncation).
	Text string
	// IsError marks a failure reported by the tool itself; Text is the
	// reason.
	IsError bool
}

// Provider is one source of tools.
type Provider interface {
	// Tools lists the tools this provider exposes, after filtering.
	Tools() []Tool
	// Call runs the tool with the exposed name and JSON object arguments.
	// A returned error means the call failed (transport, crash, timeout);
	// the engine turns it into "(tool failed: <reason>)".
	Call(ctx context.Context, name string, args json.RawMessage) (Result, error)
	// Close releases the provider (stops MCP servers). It is safe to call
	// more than once.
	Close() error
}

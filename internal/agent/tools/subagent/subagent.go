// Package subagent exposes `.ai` sub-agents as tools named agent__NAME
// (docs/contracts/ai-agent-cli.md §10 "Sub-agents", §11). Each call runs an
// isolated child session through a [RunFunc] that the session engine
// supplies; this package only shapes the tool (its name and schema), turns
// arguments into the child's prompt, carries the tracing ids, and turns the
// child's AIAgentResult into the tool result. The engine owns the child
// session's limits, accounting and lifetime.
package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
)

// TraceIDs are the multi-agent tracing ids of a session
// (docs/contracts/ai-agent.md §4): they go on every accounting entry of that
// session.
type TraceIDs struct {
	// AgentID names the agent ("main" or the sub-agent's name).
	AgentID string
	// CallPath is the chain of agent ids from the root, joined by ":".
	CallPath string
	// TxnID is this session's transaction id.
	TxnID string
	// ParentTxnID is the calling session's TxnID; empty at the root.
	ParentTxnID string
	// OriginTxnID is the root session's TxnID.
	OriginTxnID string
}

// Root returns the ids of a top-level session named agentID, with a new
// transaction id that is also its origin.
func Root(agentID string) TraceIDs {
	id := uuid.NewString()
	return TraceIDs{AgentID: agentID, CallPath: agentID, TxnID: id, OriginTxnID: id}
}

// Child returns the ids of a child session of t named agentID: a new TxnID,
// t's TxnID as parent, the same origin, and agentID appended to the path.
func (t TraceIDs) Child(agentID string) TraceIDs {
	origin := t.OriginTxnID
	if origin == "" {
		origin = t.TxnID
	}
	path := agentID
	if t.CallPath != "" {
		path = t.CallPath + ":" + agentID
	}
	return TraceIDs{AgentID: agentID, CallPath: path, TxnID: uuid.NewString(), ParentTxnID: t.TxnID, OriginTxnID: origin}
}

// Depth is the number of agents in the call path (1 at the root).
func (t TraceIDs) Depth() int {
	if t.CallPath == "" {
		return 0
	}
	return strings.Count(t.CallPath, ":") + 1
}

// Apply sets the ids on an accounting entry.
func (t TraceIDs) Apply(e *contract.AccountingEntry) {
	e.AgentID, e.CallPath, e.TxnID, e.ParentTxnID, e.OriginTxnID = t.AgentID, t.CallPath, t.TxnID, t.ParentTxnID, t.OriginTxnID
}

// RunFunc runs one isolated child session of a sub-agent with prompt as its
// user prompt, and returns its result. parent are the calling session's
// ids; the runner gives the child parent.Child(name) (or its own
// equivalent). A returned error means the child could not run at all; a
// child that ran and failed is a result with Success false.
type RunFunc func(ctx context.Context, prompt string, parent TraceIDs) (contract.AIAgentResult, error)

// Agent is one sub-agent, loaded from its `.ai` file by the engine.
type Agent struct {
	// Name is the frontmatter toolName, or the file name without ".ai".
	Name string
	// Description is shown to the model; empty uses a generic text.
	Description string
	// InputFormat is "text" (the default) or "json".
	InputFormat string
	// InputSchema is the frontmatter input.schema, used when InputFormat is
	// "json": its properties become the tool's parameters.
	InputSchema json.RawMessage
	// Run runs the child session.
	Run RunFunc
}

// DefaultMaxDepth is the deepest call path (1 is the root) below which
// an agent may still start another: a sub-agent, an advisor, a router's
// destination or a handoff.
const DefaultMaxDepth = 8

// Options tune a [Provider]. The zero value is usable.
type Options struct {
	// MaxDepth refuses calls when the caller's call path is already this
	// deep (1 is the root); zero means DefaultMaxDepth.
	MaxDepth int
	// OnResult, when set, receives every finished child's result with its
	// exposed tool name, so the engine can merge the child's accounting
	// into the parent's.
	OnResult func(tool string, res contract.AIAgentResult)
}

// Provider is the tools.Provider of a session's sub-agents.
type Provider struct {
	parent TraceIDs
	opts   Options
	list   []tools.Tool
	byName map[string]*entry
}

type entry struct {
	agent  Agent
	schema *toolschema.Schema
}

var _ tools.Provider = (*Provider)(nil)

// ErrConfig is wrapped by [New] for an unusable agent list (exit 4 class).
var ErrConfig = errors.New("sub-agent configuration error")

// New builds the provider of agents for the session with ids parent. Names
// are sanitised into agent__NAME; two agents with the same exposed name, an
// agent without a runner, or a json input schema without an object shape
// are errors wrapping [ErrConfig]; a schema that cannot compile is a
// *toolschema.CompileError.
func New(parent TraceIDs, agents []Agent, opts Options) (*Provider, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	p := &Provider{parent: parent, opts: opts, byName: map[string]*entry{}}
	for _, a := range agents {
		name := ToolName(a.Name)
		if _, dup := p.byName[name]; dup {
			return nil, fmt.Errorf("sub-agent %s: two agents expose %s: %w", a.Name, name, ErrConfig)
		}
		if a.Run == nil {
			return nil, fmt.Errorf("sub-agent %s: no runner: %w", a.Name, ErrConfig)
		}
		schema, err := inputSchema(a)
		if err != nil {
			return nil, fmt.Errorf("sub-agent %s: %w", a.Name, err)
		}
		compiled, err := toolschema.Compile(name, schema)
		if err != nil {
			return nil, err
		}
		desc := a.Description
		if desc == "" {
			desc = "Runs the " + a.Name + " agent on a task and returns its report."
		}
		p.byName[name] = &entry{agent: a, schema: compiled}
		p.list = append(p.list, tools.Tool{Name: name, LocalName: a.Name, Server: "agent", Kind: tools.KindAgent, Description: desc, InputSchema: schema})
	}
	return p, nil
}

// ToolName is the exposed name of a sub-agent: agent__NAME with characters
// outside [A-Za-z0-9_-] replaced by "_".
func ToolName(name string) string {
	return "agent__" + tools.SanitizeName(name)
}

// inputSchema builds the tool schema: prompt, reason and format (constant
// "sub-agent"), plus the input schema's properties for json agents.
func inputSchema(a Agent) (json.RawMessage, error) {
	props := map[string]any{
		"prompt": map[string]any{"type": "string", "description": "The task for the agent."},
		"reason": map[string]any{"type": "string", "description": "Why the agent is called."},
		"format": map[string]any{"type": "string", "const": "sub-agent"},
	}
	required := []string{"prompt"}
	if strings.EqualFold(a.InputFormat, "json") {
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if len(a.InputSchema) > 0 {
			if err := json.Unmarshal(a.InputSchema, &in); err != nil {
				return nil, fmt.Errorf("input.schema is not a JSON object schema: %v: %w", err, ErrConfig)
			}
		}
		for k, v := range in.Properties {
			props[k] = v
		}
		required = in.Required
	}
	sort.Strings(required)
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return json.Marshal(schema)
}

// Tools implements tools.Provider.
func (p *Provider) Tools() []tools.Tool { return append([]tools.Tool(nil), p.list...) }

// ValidateArgs checks a call's arguments against the tool schema.
func (p *Provider) ValidateArgs(name string, args json.RawMessage) error {
	e, ok := p.byName[name]
	if !ok {
		return fmt.Errorf("unknown tool '%s'", name)
	}
	return e.schema.Validate(args)
}

// Call implements tools.Provider: it validates the arguments, builds the
// child's prompt (the `prompt` text, or for json agents the JSON object of
// the arguments without reason and format), runs the child with the
// session's ids as parent, and returns the child's report: its content, or
// content_json / messages as JSON. A child that failed gives a failed result
// carrying its error.
func (p *Provider) Call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	e, ok := p.byName[name]
	if !ok {
		return tools.Result{}, fmt.Errorf("unknown tool '%s'", name)
	}
	if err := e.schema.Validate(args); err != nil {
		return tools.Result{}, err
	}
	if p.parent.Depth() >= p.opts.MaxDepth {
		return tools.Result{}, fmt.Errorf("sub-agent %s: call depth %d reached (%s)", e.agent.Name, p.opts.MaxDepth, p.parent.CallPath)
	}
	prompt, err := buildPrompt(e.agent, args)
	if err != nil {
		return tools.Result{}, err
	}
	res, err := e.agent.Run(ctx, prompt, p.parent)
	if err != nil {
		return tools.Result{}, fmt.Errorf("sub-agent %s: %w", e.agent.Name, err)
	}
	if p.opts.OnResult != nil {
		p.opts.OnResult(name, res)
	}
	return render(res), nil
}

func buildPrompt(a Agent, args json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if len(args) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return "", fmt.Errorf("decode arguments: %w", err)
		}
	}
	if !strings.EqualFold(a.InputFormat, "json") {
		var s string
		if err := json.Unmarshal(m["prompt"], &s); err != nil {
			return "", fmt.Errorf("prompt: %w", err)
		}
		return s, nil
	}
	delete(m, "reason")
	delete(m, "format")
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ReportText is a child's final report as the agent that asked gets it:
// its content, or content_json or messages as JSON; "" without a report.
func ReportText(res contract.AIAgentResult) string {
	fr := res.FinalReport
	switch {
	case fr == nil:
	case fr.Content != nil:
		return *fr.Content
	case len(fr.ContentJSON) > 0:
		return string(fr.ContentJSON)
	case len(fr.Messages) > 0:
		b, _ := json.Marshal(fr.Messages)
		return string(b)
	}
	return ""
}

// render turns a child's result into the parent's tool result.
func render(res contract.AIAgentResult) tools.Result {
	text := ReportText(res)
	if !res.Success {
		if text == "" {
			text = res.Error
		}
		return tools.Result{Text: text, IsError: true}
	}
	return tools.Result{Text: text}
}

// Close implements tools.Provider; children end with their calls.
func (p *Provider) Close() error { return nil }

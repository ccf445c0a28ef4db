package results

import "fmt"

// AgentSession is what an investigating fixer (the agent tier) did for one
// file group: its counts against its budgets, the budget that ended it,
// and its transcript. It is recorded on the tier's Attempt, so every bug
// of the group carries it in results.json.
type AgentSession struct {
	// Turns is the model turns the session took.
	Turns int `json:"turns"`
	// ToolCalls is the tool calls the model made, refused ones included.
	ToolCalls int `json:"tool_calls"`
	// InputTokens, OutputTokens and CachedTokens sum the model requests.
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CostUSD is the session's cost, where the provider or the pricing
	// table gave one.
	CostUSD float64 `json:"cost_usd"`
	// Seconds is the session's wall time.
	Seconds float64 `json:"seconds"`
	// Budget names the budget that ended the session ("turns", "tool
	// calls", "tokens", "wall time", "cost"); empty when none ran out.
	Budget string `json:"budget,omitempty"`
	// Edits counts the edits the gate accepted and Refused those it
	// turned down, during the session.
	Edits   int `json:"edits"`
	Refused int `json:"refused"`
	// Trials counts the runs of the failing tests.
	Trials int `json:"trials"`
	// Steps is the transcript, in order.
	Steps []AgentStep `json:"steps"`
}

// Agent step kinds.
const (
	// StepModel is one model turn: what it said, and how many tokens.
	StepModel = "model"
	// StepTool is one tool call and what came back.
	StepTool = "tool"
)

// AgentStep is one entry of an agent session's transcript.
type AgentStep struct {
	Turn int    `json:"turn"`
	Kind string `json:"kind"`
	// Text is the model's words (StepModel), bounded.
	Text string `json:"text,omitempty"`
	// Tokens is the turn's input plus output tokens (StepModel).
	Tokens int `json:"tokens,omitempty"`
	// Tool, Args and Result are the call and its output (StepTool), the
	// arguments and the output bounded; ResultBytes is the output's full
	// size.
	Tool        string `json:"tool,omitempty"`
	Args        string `json:"args,omitempty"`
	Result      string `json:"result,omitempty"`
	ResultBytes int    `json:"result_bytes,omitempty"`
	// Verdict is the gate's on a proposed edit: "accepted" or "refused",
	// with the rule ids a refusal names.
	Verdict string   `json:"verdict,omitempty"`
	Rules   []string `json:"rules,omitempty"`
}

// Summary says in one line what the session spent.
func (s *AgentSession) Summary() string {
	if s == nil {
		return ""
	}
	out := fmt.Sprintf("%d turn(s), %d tool call(s), %d tokens, $%.4f, %.1fs", s.Turns, s.ToolCalls, s.InputTokens+s.OutputTokens, s.CostUSD, s.Seconds)
	if s.Budget != "" {
		out += "; the " + s.Budget + " budget ran out"
	}
	return out
}

package agent

import (
	"fmt"
	"slices"

	"github.com/salve-dev/salve/contract"
)

// Resume continues an earlier conversation (docs/ai-agent.md, "Sessions").
// Its messages go between the new system prompt, which replaces a saved
// one, and the new user prompt. TurnsUsed counts against MaxTurns and
// Accounting opens the new session's ledger, so a resumed session keeps
// the limits and the accounting of the one it continues.
type Resume struct {
	Conversation []contract.Message
	Accounting   []contract.AccountingEntry
	TurnsUsed    int
}

// checkResume validates a conversation to continue: a system message only
// first, and known roles.
func checkResume(r *Resume) error {
	if r == nil {
		return nil
	}
	if r.TurnsUsed < 0 {
		return fmt.Errorf("resume: %w: negative turns used", ErrInvalid)
	}
	for i, m := range r.Conversation {
		switch m.Role {
		case contract.RoleSystem:
			if i != 0 {
				return fmt.Errorf("resume: %w: message %d is a system message past the first", ErrInvalid, i)
			}
		case contract.RoleUser, contract.RoleAssistant, contract.RoleTool:
		default:
			return fmt.Errorf("resume: %w: message %d has role %q", ErrInvalid, i, m.Role)
		}
	}
	return nil
}

// prior is the resumed conversation without its system message, with
// every tool call answered (see [answerCalls]).
func (r *Resume) prior() []contract.Message {
	if r == nil {
		return nil
	}
	conv := r.Conversation
	if len(conv) > 0 && conv[0].Role == contract.RoleSystem {
		conv = conv[1:]
	}
	return answerCalls(conv)
}

// Results that answerCalls gives the tool calls a saved conversation left
// unanswered.
const (
	// resumedFinalReport answers the final report call that ended a native
	// session: the session stopped there, so no result was recorded.
	resumedFinalReport = "Final report delivered; the earlier session ended here."
	// resumedNotRun is the reason given a call that never ran.
	resumedNotRun = "not run: the earlier session ended before this call ran"
)

// answerCalls returns conv in the shape every provider accepts: each tool
// call of an assistant message is followed by exactly one tool message
// with its id, before anything else. A native session that ends with an
// accepted agent__final_report records the call and no result (as may a
// session cut short), and OpenAI's and Anthropic's APIs refuse such a
// history with HTTP 400. So a missing result is added, right after the
// results the call's message did get: resumedFinalReport for the final
// report, a "(tool failed: not run …)" for any other call. Tool messages
// that answer no call of the message before them, or answer one twice (a
// saved file is data from whoever wrote it), are dropped, and a call
// without an id gets one. conv itself is not changed.
func answerCalls(conv []contract.Message) []contract.Message {
	out := make([]contract.Message, 0, len(conv))
	for i := 0; i < len(conv); i++ {
		m := conv[i]
		if m.Role == contract.RoleTool {
			continue // answers no call of the message before it
		}
		if m.Role != contract.RoleAssistant || len(m.ToolCalls) == 0 {
			out = append(out, m)
			continue
		}
		calls := append([]contract.ToolCall(nil), m.ToolCalls...)
		for k := range calls {
			if calls[k].ID == "" {
				calls[k].ID = fmt.Sprintf("resumed_%d_%d", i, k)
			}
		}
		m.ToolCalls = calls
		out = append(out, m)
		answered := map[string]bool{}
		for ; i+1 < len(conv) && conv[i+1].Role == contract.RoleTool; i++ {
			t := conv[i+1]
			if answered[t.ToolCallID] || !slices.ContainsFunc(calls, func(c contract.ToolCall) bool { return c.ID == t.ToolCallID }) {
				continue
			}
			answered[t.ToolCallID] = true
			out = append(out, t)
		}
		for _, c := range calls {
			if answered[c.ID] {
				continue
			}
			answered[c.ID] = true
			text := toolFailed(resumedNotRun)
			if c.Name == ToolFinalReport {
				text = resumedFinalReport
			}
			out = append(out, contract.Message{Role: contract.RoleTool, Content: text, ToolCallID: c.ID})
		}
	}
	return out
}

// TurnsIn counts the turns of a saved conversation: one assistant message
// per turn.
func TurnsIn(conv []contract.Message) int {
	n := 0
	for _, m := range conv {
		if m.Role == contract.RoleAssistant {
			n++
		}
	}
	return n
}

package agent

import (
	"fmt"

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

// prior is the resumed conversation without its system message.
func (r *Resume) prior() []contract.Message {
	if r == nil {
		return nil
	}
	conv := r.Conversation
	if len(conv) > 0 && conv[0].Role == contract.RoleSystem {
		conv = conv[1:]
	}
	return conv
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

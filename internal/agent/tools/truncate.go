package tools

import (
	"fmt"
	"unicode/utf8"
)

// Truncation describes what Truncate did to an output.
type Truncation struct {
	// Truncated is true when the output was over the limit.
	Truncated bool
	// OriginalBytes is the size of the output before truncation.
	OriginalBytes int
	// LimitBytes is the limit that applied.
	LimitBytes int
}

// Truncate applies toolResponseMaxBytes to a tool output
// (docs/contracts/ai-agent.md §1; docs/contracts/ai-agent-cli.md §11): an
// output over limit UTF-8 bytes becomes the notice "[TRUNCATED] Original
// size X bytes; truncated to Y bytes." followed by a blank line and the
// start of the output, cut at a character boundary so that the whole text is
// at most limit bytes. A limit of 0 or less means no limit. When the notice
// alone does not fit, the notice is returned whole, so that the model always
// sees it.
func Truncate(out string, limit int) (string, Truncation) {
	info := Truncation{OriginalBytes: len(out), LimitBytes: limit}
	if limit <= 0 || len(out) <= limit {
		return out, info
	}
	info.Truncated = true
	prefix := fmt.Sprintf("[TRUNCATED] Original size %d bytes; truncated to %d bytes.\n\n", len(out), limit)
	room := limit - len(prefix)
	if room <= 0 {
		return prefix[:len(prefix)-2], info
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return prefix + out[:cut], info
}

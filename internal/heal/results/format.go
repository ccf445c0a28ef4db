package results

import (
	"errors"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// FormatFixLine is the contract's output_formatter, the only place that formats
// a fix line:
//
//	{TYPE} error in {file} line {N} → Fix: {fix_reason}
//
// The reason is reduced to one line so every fix stays one line.
func FormatFixLine(bug contract.BugReport, fixReason string) string {
	reason := strings.Join(strings.Fields(fixReason), " ")
	if reason == "" {
		reason = "(no reason given)"
	}
	return fmt.Sprintf("%s error in %s line %d → Fix: %s", bug.ErrorType, bug.FilePath, bug.LineNumber, reason)
}

// UnfixedReason is the fix_reason text of a bug that was not fixed, so that
// its line still says what happened.
func UnfixedReason(status, why string) string {
	if why == "" {
		return "not fixed (" + status + ")"
	}
	return "not fixed (" + status + ": " + why + ")"
}

// Outcomes of one tier's attempt at a file group (Attempt.Outcome).
const (
	AttemptAccepted = "accepted"
	// AttemptReverted: accepted, written, then taken back after the
	// verification build; Reason says what that build showed.
	AttemptReverted      = "reverted"
	AttemptRejected      = "rejected"
	AttemptNoFix         = "no_fix"
	AttemptError         = "error"
	AttemptNotConfigured = "not_configured"
)

// TierSummary says in one line what each tier did with a file group, in
// tier order: "rules: no rule matches a.go; llm: not configured".
func TierSummary(as []Attempt) string {
	parts := make([]string, 0, len(as))
	for _, a := range as {
		parts = append(parts, a.Fixer+": "+shorten(attemptWhy(a, false), maxTierReason))
	}
	return strings.Join(parts, "; ")
}

// maxTierReason caps one tier's reason in the one-line summary; the whole
// reason is in the explanation lines and in results.json.
const maxTierReason = 160

// shorten cuts s to at most n bytes, on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// attemptWhy explains one attempt; long adds how to enable a tier that is
// not configured.
func attemptWhy(a Attempt, long bool) string {
	reason := strings.TrimSuffix(strings.TrimSuffix(a.Reason, ": "+ErrNoFix.Error()), ": "+ErrNoFix.Error())
	reason = strings.TrimPrefix(reason, a.Fixer+": ")
	switch a.Outcome {
	case AttemptAccepted:
		return "fix accepted by the gate"
	case AttemptReverted:
		return fmt.Sprintf("fix (confidence %.2f) accepted by the gate, then reverted: %s", a.Confidence, reason)
	case AttemptRejected:
		return fmt.Sprintf("fix (confidence %.2f) rejected by the gate: %s", a.Confidence, reason)
	case AttemptNotConfigured:
		why, enable, _ := strings.Cut(reason, ": "+ErrNotConfigured.Error()+": ")
		if !long || enable == "" {
			return "not configured"
		}
		return "not configured (" + why + "): " + enable
	case AttemptError:
		return "failed: " + reason
	}
	if reason == "" {
		return "no fix"
	}
	return reason
}

// maxMessageLines caps the compiler message lines Explain shows.
const maxMessageLines = 4

// Explain returns the lines that tell a user why a bug stays red and what
// to do next: the toolchain's own message (its first lines), then what
// each tier did with it, then the status reason when the tiers do not
// already say it (a revert, a fix that did not remove the error). It
// returns nil for a fixed bug.
func (b BugResult) Explain() []string {
	if b.Status == StatusFixed {
		return nil
	}
	var out []string
	var msg []string
	for _, l := range strings.Split(b.Bug.Message, "\n") {
		if strings.TrimSpace(l) != "" {
			msg = append(msg, strings.TrimRight(l, " \t\r"))
		}
	}
	for i, l := range msg {
		prefix := "message: "
		if i > 0 {
			prefix = "         "
		}
		if i == maxMessageLines {
			out = append(out, fmt.Sprintf("%s… (%d more lines in results.json)", prefix, len(msg)-i))
			break
		}
		out = append(out, prefix+l)
	}
	for _, a := range b.Attempts {
		out = append(out, a.Fixer+": "+attemptWhy(a, true))
	}
	switch {
	case len(b.Attempts) == 0 && b.Reason != "":
		out = append(out, "why: "+b.Reason)
	case b.Status == StatusFailed && !strings.HasPrefix(b.Reason, "no fixer had a fix") && !revertShown(b):
		out = append(out, "why: "+b.Reason)
	}
	return out
}

// revertShown reports whether b's attempts already say that its fix was
// reverted and why.
func revertShown(b BugResult) bool {
	if !strings.HasPrefix(b.Reason, "reverted: ") {
		return false
	}
	for _, a := range b.Attempts {
		if a.Outcome == AttemptReverted {
			return true
		}
	}
	return false
}

// ErrNoFix is wrapped by a fixer that has no fix for the reports it got.
var ErrNoFix = errors.New("no fix")

// ErrNotConfigured is wrapped by a fixer tier that cannot run because it
// is not set up; its attempts are recorded as "not_configured".
var ErrNotConfigured = errors.New("not configured")

package heal

import (
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// FormatFixLine is the seed's output_formatter, the only place that formats
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

// unfixedReason is the fix_reason text of a bug that was not fixed, so that
// its line still says what happened.
func unfixedReason(status, why string) string {
	if why == "" {
		return "not fixed (" + status + ")"
	}
	return "not fixed (" + status + ": " + why + ")"
}

package rules

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

var rePyIndentMix = regexp.MustCompile(`(?i)inconsistent use of tabs and spaces|TabError|unindent does not match|unexpected indent|expected an indented block`)

// fixPyIndent turns leading tabs into spaces in the reported block (the
// reported line ±3), one indentation unit per tab. The unit is the file's
// own space indentation (the smallest space-only indent), else 4.
func fixPyIndent(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	unit := strings.Repeat(" ", spaceUnit(ls.l))
	var changed []int
	for _, r := range in.reports {
		if !rePyIndentMix.MatchString(r.Message) {
			continue
		}
		for l := max(1, r.LineNumber-3); l <= min(len(ls.l), r.LineNumber+3); l++ {
			ind := indentOf(ls.l[l-1])
			if !strings.Contains(ind, "\t") {
				continue
			}
			ls.l[l-1] = strings.ReplaceAll(ind, "\t", unit) + ls.l[l-1][len(ind):]
			changed = append(changed, l)
		}
	}
	if len(changed) == 0 {
		return edit{}, false, nil
	}
	return edit{content: ls.String(), reason: fmt.Sprintf("indent line %d with spaces instead of tabs, like the rest of the block", changed[0]), confidence: 0.8}, true, nil
}

func spaceUnit(src []string) int {
	unit := 0
	for _, l := range src {
		ind := indentOf(l)
		if ind == "" || strings.Contains(ind, "\t") || strings.TrimSpace(l) == "" {
			continue
		}
		if unit == 0 || len(ind) < unit {
			unit = len(ind)
		}
	}
	if unit == 0 {
		return 4
	}
	return unit
}

package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// rePyExpectedColon is Python's own message for a compound statement
// without its colon (3.10 and later).
var rePyExpectedColon = lazyre.New(`^SyntaxError: expected ':'$`)

// rePyCompound matches the header of a compound statement: the keywords
// after which Python expects a ':' at the end of the logical line.
var rePyCompound = lazyre.New(`^\s*(async\s+)?(if|elif|else|for|while|def|class|with|try|except|finally|match|case)\b`)

// fixPyColon adds the ':' Python reports missing, at the end of the
// reported line, when that line is a one-line compound statement header
// (its brackets balanced, no backslash) that does not already end in ':'.
// A header that ends in ';' instead has it replaced. A comment at the
// end of the line stays after the colon.
func fixPyColon(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	for _, r := range in.reports {
		if !rePyExpectedColon.MatchString(strings.TrimSpace(firstLine(r.Message))) || r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		line := ls.l[r.LineNumber-1]
		if !rePyCompound.MatchString(line) {
			continue
		}
		code := strings.TrimRight(pyCode(line), " \t\r")
		if code == "" || strings.HasSuffix(code, ":") || strings.HasSuffix(code, "\\") ||
			strings.Count(code, "(")+strings.Count(code, "[")+strings.Count(code, "{") != strings.Count(code, ")")+strings.Count(code, "]")+strings.Count(code, "}") {
			continue
		}
		// pyCode blanks strings but keeps the length: cut the line there.
		if strings.HasSuffix(code, ";") {
			// A header ended by ';': the key beside ':' was struck.
			ls.l[r.LineNumber-1] = line[:len(code)-1] + ":" + line[len(code):]
			return edit{content: ls.String(), reason: fmt.Sprintf("the ';' that ends the statement on line %d made the ':' it needs", r.LineNumber), confidence: 0.9}, true, nil
		}
		ls.l[r.LineNumber-1] = line[:len(code)] + ":" + line[len(code):]
		return edit{content: ls.String(), reason: fmt.Sprintf("add the ':' that ends the statement on line %d", r.LineNumber), confidence: 0.9}, true, nil
	}
	return edit{}, false, nil
}

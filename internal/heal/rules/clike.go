package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// reMissingSemi matches the missing-semicolon messages of gcc, clang,
// javac, tsc and eslint, whatever quotes they use.
var reMissingSemi = lazyre.New(`(?i)expected .{0,12};|';' expected|missing semicolon`)

// fixSemicolon appends the missing ';' at the end of the statement the
// compiler points at: the reported line when it does not already end a
// statement, else the previous non-blank line (gcc reports the token after
// the gap).
func fixSemicolon(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	syn := lang.Of(in.path)
	var fixed []int
	for _, r := range in.reports {
		if !reMissingSemi.MatchString(r.Message) || r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		l := semicolonLine(syn, ls.l, r.LineNumber)
		if l == 0 || contains(fixed, l) {
			continue
		}
		code, comment := syn.SplitLine(ls.l[l-1])
		trimmed := strings.TrimRight(code, " \t")
		ls.l[l-1] = trimmed + ";" + code[len(trimmed):] + comment
		fixed = append(fixed, l)
	}
	if len(fixed) == 0 {
		return edit{}, false, nil
	}
	return edit{content: ls.String(), reason: fmt.Sprintf("add the missing ';' at the end of line %d", fixed[0]), confidence: 0.9}, true, nil
}

// semicolonLine picks the line that lacks its ';', or 0.
func semicolonLine(syn *lang.Language, src []string, reported int) int {
	if needsSemicolon(syn, src[reported-1]) {
		return reported
	}
	for l := reported - 1; l >= 1 && l >= reported-3; l-- {
		code, _ := syn.SplitLine(src[l-1])
		if strings.TrimSpace(code) == "" {
			continue
		}
		if needsSemicolon(syn, src[l-1]) {
			return l
		}
		return 0
	}
	return 0
}

// needsSemicolon reports whether a line looks like a statement that ends
// without its ';'.
func needsSemicolon(syn *lang.Language, line string) bool {
	code, _ := syn.SplitLine(line)
	t := strings.TrimSpace(code)
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return false
	}
	switch t[len(t)-1] {
	case ';', '{', '}', ',', ':', '(', '[', '\\', '&', '|', '+', '-', '*', '/', '=', '<', '>', '?', '!':
		return false
	}
	return true
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

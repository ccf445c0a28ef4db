package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// rePyPrint is Python 3's "Missing parentheses in call to 'print'. Did
// you mean print(...)?", for a Python 2 print statement.
var rePyPrint = lazyre.New(`Missing parentheses in call to 'print'`)

// rePrintStatement is a Python 2 print statement alone on a line: its
// indentation and what it prints ("" for a bare print).
var rePrintStatement = lazyre.New(`^(\s*)print(?:\s+(\S.*?))?\s*$`)

// fixPyPrint turns the Python 2 print statements of the reported line,
// and of the lines within 3 of it (Python stops at the first, and the
// next would be the next error), into calls, as 2to3 does: `print x, y`
// becomes `print(x, y)`, a trailing comma `print(x, end=" ")`, a bare
// `print` `print()`; a comment after the statement stays after it. A
// statement that redirects (`print >>f, x`) or runs on past its line is
// left alone.
func fixPyPrint(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	l := lang.Of(in.path)
	done := map[int]bool{}
	var reasons []string
	for _, r := range in.reports {
		if !rePyPrint.MatchString(r.Message) || r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		for n := max(1, r.LineNumber-3); n <= min(len(ls.l), r.LineNumber+3); n++ {
			if done[n] {
				continue
			}
			if out, ok := printCall(l, ls.l[n-1]); ok {
				ls.l[n-1] = out
				done[n] = true
				reasons = append(reasons, fmt.Sprintf("line %d", n))
			}
		}
	}
	if len(reasons) == 0 {
		return edit{}, false, nil
	}
	return edit{content: ls.String(), reason: "Python 2 print statement made a call, as 2to3 does: " + strings.Join(reasons, ", "), confidence: 0.9}, true, nil
}

// printCall returns the call form of a print statement line of a file of
// language l.
func printCall(l *lang.Language, line string) (string, bool) {
	stmt, comment := line, ""
	for _, sp := range l.Spans(line) {
		if sp.Kind == lang.Comment {
			stmt, comment = line[:sp.Start], line[sp.Start:]
			break
		}
	}
	gap := stmt[len(strings.TrimRight(stmt, " \t")):]
	stmt = strings.TrimRight(stmt, " \t")
	code := l.Code(stmt)
	m := rePrintStatement.FindStringSubmatch(stmt)
	if m == nil || strings.HasSuffix(code, "\\") {
		return "", false
	}
	args := m[2]
	var out string
	switch {
	case args == "":
		out = m[1] + "print()"
	case strings.HasPrefix(args, "(") && balanced(code[strings.Index(code, "print")+5:]) && closesAtEnd(code):
		return "", false // already a call: print (x)
	case strings.HasPrefix(args, ">>") || !balanced(code):
		return "", false
	case strings.HasSuffix(code, ","):
		out = m[1] + "print(" + strings.TrimSuffix(args, ",") + `, end=" ")`
	default:
		out = m[1] + "print(" + args + ")"
	}
	return out + gap + comment, true
}

// closesAtEnd reports whether the first bracket after print closes at
// the end of the line: print (x) is a call, print (x), y a tuple.
func closesAtEnd(code string) bool {
	s := strings.TrimSpace(code[strings.Index(code, "print")+5:])
	depth := 0
	for i, c := range s {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i == len(s)-1
			}
		}
	}
	return false
}

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
// next would be the next error), into calls: `print x, y` becomes
// `print(x, y)`, a bare `print` `print()`; a comment after the statement
// stays after it.
//
// It converts only where the calls print what the statements printed,
// from Python 2's documented print statement, and only where no print
// statement of the file is left to mean something else once the file
// compiles as Python 3. The file is left whole when one of its print
// statements:
//   - ends with a comma: Python 2 then writes no newline and keeps a
//     "soft space" that the next print writes only if it prints on the
//     same line; 2to3's `end=" "` writes it at once, so a bare print or
//     a write after it prints otherwise;
//   - prints a string literal ending in whitespace other than a space
//     before another value: Python 2 writes no space after it, print()
//     does;
//   - redirects (`print >>f, x`), or prints a parenthesized tuple
//     (`print (a, b)`), or a parenthesized operand with more after it
//     (`print ("%d") % n`, `print (a), b`): Python 3 compiles each as an
//     expression that prints otherwise, or fails when run, so no compile
//     error would ever lead back to it;
//   - is bare and beyond this fix's lines: Python 3 compiles a bare
//     `print` as a name that prints nothing;
//   - runs on past its line.
//
// And the file is left whole when it divides with `/` between operands
// that are not float literals without `from __future__ import division`:
// a file of print statements is Python 2, where such a `/` floors
// integers, and once it compiles as Python 3 the same `/` divides them
// exactly (PEP 238), a change no compile check sees.
func fixPyPrint(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	l := lang.Of(in.path)
	code := l.Code(in.content)
	if divides(code) {
		return edit{}, false, nil
	}
	window := map[int]bool{}
	for _, r := range in.reports {
		if !rePyPrint.MatchString(r.Message) || r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		for n := max(1, r.LineNumber-3); n <= min(len(ls.l), r.LineNumber+3); n++ {
			window[n] = true
		}
	}
	if len(window) == 0 {
		return edit{}, false, nil
	}
	codeLines := strings.Split(code, "\n")
	calls := map[int]string{}
	for i, line := range ls.l {
		if i >= len(codeLines) || !rePrintStatement.MatchString(strings.TrimRight(codeLines[i], " \t")) {
			continue // not a print statement, or one inside a literal
		}
		out, v := printCall(l, line)
		switch {
		case v == printAmbiguous, v == printBare && !window[i+1]:
			return edit{}, false, nil
		case v != printKeep && window[i+1]:
			calls[i+1] = out
		}
	}
	var reasons []string
	for n := 1; n <= len(ls.l); n++ {
		if out, ok := calls[n]; ok {
			ls.l[n-1] = out
			reasons = append(reasons, fmt.Sprintf("line %d", n))
		}
	}
	if len(reasons) == 0 {
		return edit{}, false, nil
	}
	return edit{content: ls.String(), reason: "Python 2 print statement made a call, as 2to3 does: " + strings.Join(reasons, ", "), confidence: 0.9}, true, nil
}

// printVerdict is what printCall makes of a print statement.
type printVerdict int

const (
	printConvert   printVerdict = iota // a call prints the same
	printBare                          // a bare print: print() prints the same
	printKeep                          // already a call of one value: print (x)
	printAmbiguous                     // no call is known to print the same
)

// printCall returns the call form of a print statement line of a file of
// language l, and what the call keeps of its meaning.
func printCall(l *lang.Language, line string) (string, printVerdict) {
	stmt, comment := l.SplitLine(line)
	gap := stmt[len(strings.TrimRight(stmt, " \t")):]
	stmt = strings.TrimRight(stmt, " \t")
	code := l.Code(stmt)
	m := rePrintStatement.FindStringSubmatch(stmt)
	if m == nil || strings.HasSuffix(code, "\\") {
		return "", printAmbiguous
	}
	args := m[2]
	switch {
	case args == "":
		return m[1] + "print()" + gap + comment, printBare
	case !balanced(code), strings.HasPrefix(args, ">>"), strings.HasSuffix(code, ","), endsInNewline(l, stmt):
		return "", printAmbiguous
	case strings.HasPrefix(args, "("):
		if whole, tuple := parenthesized(strings.TrimSpace(code[strings.Index(code, "print")+5:])); whole && !tuple {
			return "", printKeep // print (x): the same call in both
		}
		return "", printAmbiguous
	}
	return m[1] + "print(" + args + ")" + gap + comment, printConvert
}

// parenthesized reads s, which opens with a bracket: whole when that
// bracket closes at the end of s (print (x) is a call, print (x), y a
// tuple), tuple when a comma stands right inside it.
func parenthesized(s string) (whole, tuple bool) {
	depth := 0
	for i, c := range s {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				return i == len(s)-1, tuple
			}
		case ',':
			tuple = tuple || depth == 1
		}
	}
	return false, tuple
}

// endsInNewline reports whether a string literal of the print statement
// stmt that is followed by a comma ends in whitespace other than a space
// (a newline, a tab, a form feed, as a character or an escape): Python
// 2's print writes no space after such a value, print() does.
func endsInNewline(l *lang.Language, stmt string) bool {
	for _, sp := range l.Spans(stmt) {
		if sp.Kind != lang.String {
			continue
		}
		if !strings.HasPrefix(strings.TrimLeft(stmt[sp.End:], " \t"), ",") {
			continue
		}
		body := strings.TrimRight(stmt[sp.Start:sp.End], `"'`)
		for _, ws := range []string{`\n`, `\t`, `\r`, `\f`, `\v`, "\t", "\f", "\v"} {
			if strings.HasSuffix(body, ws) && !strings.HasSuffix(body, `\`+ws) {
				return true
			}
		}
	}
	return false
}

// reFutureDivision is Python 2's `from __future__ import division`,
// which gives `/` Python 3's meaning.
var reFutureDivision = lazyre.New(`(?m)^\s*from\s+__future__\s+import\s[^\n]*\bdivision\b`)

// isFloatLiteral reports whether w is a Python float literal: digits
// with a point or a decimal exponent.
func isFloatLiteral(w string) bool {
	if w == "" || !(w[0] >= '0' && w[0] <= '9' || w[0] == '.' && len(w) > 1) || strings.HasPrefix(strings.ToLower(w), "0x") {
		return false
	}
	return strings.ContainsAny(w, ".eE")
}

// operandWord returns the number or name that s ends with (before) or
// starts with (after), past blanks.
func operandWord(s string, before bool) string {
	word := func(c byte) bool { return lang.IsNameByte(c) || c == '.' }
	if before {
		s = strings.TrimRight(s, " \t\\\n")
		i := len(s)
		for i > 0 && word(s[i-1]) {
			i--
		}
		return s[i:]
	}
	s = strings.TrimLeft(s, " \t\\\n+-")
	i := 0
	for i < len(s) && (word(s[i]) || i > 0 && (s[i] == '+' || s[i] == '-') && (s[i-1] == 'e' || s[i-1] == 'E')) {
		i++
	}
	return s[:i]
}

// divides reports whether code (a Python file with its comments and
// literals blanked) has a `/` or `/=` neither of whose neighbours is a
// float literal, and no `from __future__ import division`: a division
// whose meaning on integers Python 3 changed.
func divides(code string) bool {
	if reFutureDivision.MatchString(code) {
		return false
	}
	for i := 0; i < len(code); i++ {
		if code[i] != '/' {
			continue
		}
		if i+1 < len(code) && code[i+1] == '/' {
			i++ // floor division: the same in both
			continue
		}
		right := code[i+1:]
		right = strings.TrimPrefix(right, "=")
		if !isFloatLiteral(operandWord(code[:i], true)) && !isFloatLiteral(operandWord(right, false)) {
			return true
		}
	}
	return false
}

package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

var rePyIndentMix = lazyre.New(`(?i)inconsistent use of tabs and spaces|TabError|unindent does not match|unexpected indent|expected an indented block`)

// pyTabSize is the tab stop of Python's tokenizer: a tab advances the
// column to the next multiple of 8, a form feed resets it to 0.
const pyTabSize = 8

// pyCol returns the column Python's tokenizer gives an indentation.
func pyCol(ind string) int {
	col := 0
	for _, c := range ind {
		switch c {
		case ' ':
			col++
		case '\t':
			col = (col/pyTabSize + 1) * pyTabSize
		case '\f':
			col = 0
		}
	}
	return col
}

// fixPyIndent rewrites the mixed indentation of the reported lines ±3 in
// the style of the block (the indentation of the nearest indented line
// above the reported one, else the file's dominant style). Each line keeps the column Python's tokenizer gives it
// (a tab to the next multiple of 8) when that column fits the block: a
// level already open above it, or a deeper one after a line ending in
// ':'. Only when it does not, a tab is read as one indentation unit of the
// file (the smallest space indent, else 4), at a lower confidence; a line
// that fits neither way is left alone.
func fixPyIndent(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	unit := spaceUnit(ls.l)
	tabs := false
	conf := 0.85
	var changed []int
	aligned := -1 // the column of a misaligned line put back in its block
	for _, r := range in.reports {
		if !rePyIndentMix.MatchString(r.Message) || r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		tabs = styleBefore(ls.l, r.LineNumber)
		if l := r.LineNumber; !mixed(indentOf(ls.l[l-1]), tabs) {
			// Not a tab slip: a line a few columns off its block. It takes
			// the open level nearest to it, when one is nearest and close.
			if col, ok := nearestLevel(ls.l[:l-1], pyCol(indentOf(ls.l[l-1])), unit); ok {
				line := ls.l[l-1]
				ls.l[l-1] = render(col, tabs) + line[len(indentOf(line)):]
				changed = append(changed, l)
				conf = min(conf, 0.8)
				aligned = col
			}
			continue
		}
		for l := max(1, r.LineNumber-3); l <= min(len(ls.l), r.LineNumber+3); l++ {
			line := ls.l[l-1]
			ind := indentOf(line)
			if strings.TrimSpace(line) == "" || !mixed(ind, tabs) {
				continue
			}
			stack, opens := pyIndentStack(ls.l[:l-1])
			col := pyCol(ind)
			if !fits(col, stack, opens) {
				col = strings.Count(ind, "\t")*unit + strings.Count(ind, " ")
				if !fits(col, stack, opens) {
					continue
				}
				conf = 0.75
			}
			if fixed := render(col, tabs) + line[len(ind):]; fixed != line {
				ls.l[l-1] = fixed
				changed = append(changed, l)
			}
		}
	}
	if len(changed) == 0 {
		return edit{}, false, nil
	}
	if aligned >= 0 && len(changed) == 1 {
		return edit{content: ls.String(), reason: fmt.Sprintf("indent line %d to column %d, the level of its block", changed[0], aligned), confidence: conf}, true, nil
	}
	style := "spaces instead of tabs"
	if tabs {
		style = "tabs instead of spaces"
	}
	return edit{content: ls.String(), reason: fmt.Sprintf("indent line %d with %s, like the rest of the block", changed[0], style), confidence: conf}, true, nil
}

// nearestLevel returns the indentation a misaligned line should have: the
// open level of the stack before it nearest to its column, when exactly one
// is nearest and it is less than one indentation unit away. A line after
// one that opens a block is left alone: whether it belongs in the block or
// after it is a choice only its author can make.
func nearestLevel(before []string, col, unit int) (int, bool) {
	stack, opens := pyIndentStack(before)
	if opens || fits(col, stack, opens) {
		return 0, false
	}
	best, bestD, ties := 0, -1, 0
	for _, s := range stack {
		d := max(s-col, col-s)
		switch {
		case bestD < 0 || d < bestD:
			best, bestD, ties = s, d, 0
		case d == bestD:
			ties++
		}
	}
	if ties > 0 || bestD >= max(unit, 2) {
		return 0, false
	}
	return best, true
}

// mixed reports whether an indentation is not in the file's style.
func mixed(ind string, tabs bool) bool {
	if tabs {
		return strings.Contains(ind, " ") && pyCol(ind) >= pyTabSize
	}
	return strings.Contains(ind, "\t")
}

func render(col int, tabs bool) string {
	if tabs {
		return strings.Repeat("\t", col/pyTabSize) + strings.Repeat(" ", col%pyTabSize)
	}
	return strings.Repeat(" ", col)
}

// fits reports whether a line at col is valid after the indentation stack
// (the open levels, outermost first): deeper than the top after a line
// that opens a block, else one of the open levels.
func fits(col int, stack []int, opens bool) bool {
	top := stack[len(stack)-1]
	if opens {
		return col > top
	}
	for _, s := range stack {
		if s == col {
			return true
		}
	}
	return false
}

// pyIndentStack replays the tokenizer's indentation stack over the lines
// before a line: blank and comment-only lines and the continuation lines
// of an open bracket or a backslash do not count. opens says whether the
// last logical line ends with ':'.
func pyIndentStack(src []string) ([]int, bool) {
	stack := []int{0}
	depth := 0
	cont := false
	opens := false
	for _, line := range src {
		code := strings.TrimRight(pyCode(line), " \t\f\r")
		if strings.TrimSpace(code) == "" {
			continue
		}
		if depth == 0 && !cont {
			col := pyCol(indentOf(line))
			for len(stack) > 1 && col < stack[len(stack)-1] {
				stack = stack[:len(stack)-1]
			}
			if col > stack[len(stack)-1] {
				stack = append(stack, col)
			}
		}
		depth += strings.Count(code, "(") + strings.Count(code, "[") + strings.Count(code, "{") -
			strings.Count(code, ")") - strings.Count(code, "]") - strings.Count(code, "}")
		depth = max(depth, 0)
		cont = strings.HasSuffix(code, "\\")
		opens = depth == 0 && !cont && strings.HasSuffix(code, ":")
	}
	return stack, opens
}

// pyLexer is the language table's row for Python, whose lexer reads
// Python's comments and literals for the rules below.
var pyLexer = lang.ByName("python")

// pyCode returns a line without its comment and with the insides of its
// string literals blanked (their quotes kept), a one-line approximation
// of the tokenizer.
func pyCode(line string) string {
	code, _ := pyLexer.SplitLine(line)
	return pyLexer.Hollow(code)
}

// styleBefore reports whether the nearest indented line above line is
// indented with a tab, else whether the file is mostly tab-indented.
func styleBefore(src []string, line int) bool {
	for l := line - 1; l >= 1; l-- {
		s := src[l-1]
		if strings.TrimSpace(s) == "" || strings.HasPrefix(strings.TrimSpace(s), "#") {
			continue
		}
		if strings.HasPrefix(s, "\t") {
			return true
		}
		if strings.HasPrefix(s, " ") {
			return false
		}
	}
	return tabDominant(src)
}

// tabDominant reports whether most indented lines of the file start with
// a tab.
func tabDominant(src []string) bool {
	t, s := 0, 0
	for _, l := range src {
		if strings.TrimSpace(l) == "" {
			continue
		}
		switch {
		case strings.HasPrefix(l, "\t"):
			t++
		case strings.HasPrefix(l, " "):
			s++
		}
	}
	return t > s
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

package heal

import (
	"regexp"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
)

// newHelper reports whether hunk h only adds a helper function that the
// fixed code needs: a pure insertion whose first line of code declares a
// function private to the file or package (lang.PrivateFunc), under a name
// the original does not use, and whose name the patched file uses only in
// the insertion itself and inside the windows (or the reports' lines ±3).
// Such a helper is part of the fix of the code it serves; anything else
// outside the windows needs a report of its own. The integrity rules still
// judge what the helper does.
func newHelper(l *lang.Language, h Hunk, hunks []Hunk, original, patched string, windows []LineRange, reports []contract.BugReport) bool {
	if len(h.Old) != 0 {
		return false
	}
	allowed := append([]LineRange{}, windows...)
	for _, r := range reports {
		allowed = append(allowed, LineRange{Start: max(1, r.LineNumber-GateWindow), End: r.LineNumber + GateWindow})
	}
	return newHelperAt(l, h, insertionStart(hunks, h), hunks, original, patched, allowed)
}

// newHelperAt is newHelper for the lines h.New that start at line lo of
// the patched file, used in the windows (original lines) alone.
func newHelperAt(l *lang.Language, h Hunk, lo int, hunks []Hunk, original, patched string, windows []LineRange) bool {
	if l == nil {
		return false
	}
	name := ""
	for _, line := range h.New {
		t := strings.TrimSpace(line)
		if t == "" || isCommentLine(l, t) {
			continue
		}
		name = l.PrivateFunc(line)
		break
	}
	if name == "" {
		return false
	}
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	if word.MatchString(l.Code(original)) {
		return false
	}
	hi := lo + len(h.New) - 1
	var allowed []LineRange
	for _, w := range windows {
		a, _ := mapLine(hunks, w.Start)
		_, b := mapLine(hunks, w.End)
		allowed = append(allowed, LineRange{Start: a, End: b})
	}
	used := false
	for i, line := range splitLines(l.Code(patched)) {
		n := i + 1
		if (n >= lo && n <= hi) || !word.MatchString(line) {
			continue
		}
		inside := false
		for _, w := range allowed {
			if n >= w.Start && n <= w.End {
				inside = true
				break
			}
		}
		if !inside {
			return false
		}
		used = true
	}
	return used
}

// insertionStart returns the patched file's line where the lines of h
// begin.
func insertionStart(hunks []Hunk, h Hunk) int {
	shift := 0
	for _, o := range hunks {
		if o.OldStart == h.OldStart && len(o.Old) == len(h.Old) && len(o.New) == len(h.New) {
			break
		}
		shift += len(o.New) - len(o.Old)
	}
	return h.OldStart + shift
}

// isCommentLine reports whether the trimmed line t starts with one of l's
// line-comment openers or its block-comment opener.
func isCommentLine(l *lang.Language, t string) bool {
	for _, o := range l.Syntax.Line {
		if strings.HasPrefix(t, o) {
			return true
		}
	}
	return l.Syntax.BlockOpen != "" && (strings.HasPrefix(t, l.Syntax.BlockOpen) || strings.HasPrefix(t, "*"))
}

// inFunction reports whether hunk h stays inside the body of one window
// (the code under test): an insertion must have window lines on both
// sides, and no line the hunk adds may start a declaration beside the
// function (a line indented no deeper than the function's own first line
// that is not a closing bracket), unless it starts a new private helper
// that only the windows call (newHelper).
func inFunction(l *lang.Language, h Hunk, hunks []Hunk, original, patched string, windows []LineRange) bool {
	lo, hi := hunkSpan(h)
	orig := splitLines(original)
	for _, w := range windows {
		if w.Start > w.End || lo < w.Start || hi > w.End || w.Start > len(orig) {
			continue
		}
		declIndent := indentOf(orig[w.Start-1])
		for i, line := range h.New {
			t := strings.TrimSpace(line)
			if t == "" || closing(t) || (l != nil && isCommentLine(l, t)) || indentOf(line) > declIndent {
				continue
			}
			// The function's own first line, rewritten in place.
			if h.OldStart+i == w.Start && len(h.Old) > i {
				continue
			}
			helper := Hunk{OldStart: h.OldStart, New: h.New[i:]}
			if !newHelperAt(l, helper, insertionStart(hunks, h)+i, hunks, original, patched, windows) {
				return false
			}
		}
		return true
	}
	return false
}

// closing reports whether a trimmed line only closes brackets or a block.
func closing(t string) bool {
	t = strings.TrimRight(t, ";,")
	if t == "end" || t == "fi" || t == "done" {
		return true
	}
	return strings.Trim(t, "})]") == ""
}

// Indent returns the width of a line's leading blanks, a tab counting as
// four columns: the one measure of indentation of the gate and the reach.
func Indent(line string) int { return indentOf(line) }

// indentOf returns the width of a line's leading blanks, a tab counting
// as four columns.
func indentOf(line string) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// trailingBlank reports whether h only adds or removes blank lines at the
// end of the file: an editor's or a model's final newline, which changes
// nothing a build sees.
func trailingBlank(h Hunk, original string) bool {
	if h.OldStart+len(h.Old)-1 < len(splitLines(original)) && len(h.Old) > 0 {
		return false
	}
	if len(h.Old) == 0 && h.OldStart <= len(splitLines(original)) {
		return false
	}
	for _, l := range append(append([]string{}, h.Old...), h.New...) {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return len(h.Old)+len(h.New) > 0
}

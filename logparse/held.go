package logparse

import "strings"

// maxDetail bounds the lines a held report may take.
const maxDetail = 12

// held is a report whose detail lines are still being read (see
// Row.Detail); the zero value holds nothing.
type held struct {
	f      *finding
	detail func(f *finding, s string, n int) bool
	n      int  // lines taken
	emit   bool // emit the report when done (a javac warning waits for -Werror instead)
}

// hold keeps f until detail turns a line down; f is then emitted when
// emit is true, or left where it is (a javac warning, completed in place).
func (p *parser) hold(f *finding, detail func(f *finding, s string, n int) bool, emit bool) {
	p.release()
	p.held = held{f: f, detail: detail, emit: emit}
}

// readHeld offers the clean line s to the held report, if any, and reports
// whether it took it. A line it turns down releases the report.
func (p *parser) readHeld(s string) bool {
	h := &p.held
	if h.f == nil {
		return false
	}
	if h.n < maxDetail && h.detail(h.f, s, h.n) {
		h.n++
		return true
	}
	p.release()
	return false
}

// release emits the held report, if any and if it is to be emitted.
func (p *parser) release() {
	h := p.held
	p.held = held{}
	if h.f != nil && h.emit {
		p.emit(*h.f)
	}
}

// javacDetail reads the lines javac prints under a diagnostic: the source
// line, a caret under the column, then indented notes ("symbol:",
// "location:", "required:", "where T is a type-variable:"). The caret
// gives the report its column, which tells apart two errors on one line
// that have the same message (two "cannot find symbol").
func javacDetail(f *finding, s string, n int) bool {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return false
	case n == 0:
		return !isJavacHeader(s) // the source line
	case n == 1 && t == "^":
		if f.col <= 0 {
			f.col = strings.IndexByte(s, '^') + 1
		}
		return true
	}
	return n >= 2 && (s[0] == ' ' || s[0] == '\t') && !isJavacHeader(s)
}

// isJavacHeader is a cheap test for the first line of a javac diagnostic.
func isJavacHeader(s string) bool {
	return strings.Contains(s, ".java:") && (strings.Contains(s, ": error: ") || strings.Contains(s, ": warning: "))
}

package logparse

import "strings"

// maxDetail bounds the lines a held report may take.
const maxDetail = 12

// held is a report whose detail lines are still being read (see
// Row.Detail); the zero value holds nothing. The report is held by value,
// so that a row's finding does not escape to the heap.
type held struct {
	on     bool
	f      finding // the report, emitted when done
	warn   int     // instead of f: 1 + the index in javaWarn of a javac warning, completed in place
	detail func(f *finding, s string, n int) bool
	n      int // lines taken
}

// hold keeps f until detail turns a line down, then emits it.
func (p *parser) hold(f finding, detail func(f *finding, s string, n int) bool) {
	p.release()
	p.held = held{on: true, f: f, detail: detail}
}

// holdWarn completes the javac warning javaWarn[i], which waits for
// -Werror, with its detail lines.
func (p *parser) holdWarn(i int, detail func(f *finding, s string, n int) bool) {
	p.release()
	p.held = held{on: true, warn: i + 1, detail: detail}
}

// readHeld offers the clean line s to the held report, if any, and reports
// whether it took it. A line it turns down releases the report.
func (p *parser) readHeld(s string) bool {
	h := &p.held
	if !h.on {
		return false
	}
	f := &h.f
	if h.warn > 0 {
		if h.warn > len(p.ctx.javaWarn) {
			p.held = held{}
			return false
		}
		f = &p.ctx.javaWarn[h.warn-1]
	}
	if h.n < maxDetail && h.detail(f, s, h.n) {
		h.n++
		return true
	}
	p.release()
	return false
}

// release emits the held report, if any (a warning stays in javaWarn).
func (p *parser) release() {
	if !p.held.on {
		return
	}
	h := p.held
	p.held = held{}
	if h.warn == 0 {
		p.emit(h.f)
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
	if n < 2 || (s[0] != ' ' && s[0] != '\t') || isJavacHeader(s) {
		return false
	}
	// "symbol:" and "location:" name what the message is about (which
	// name "cannot find symbol" means): the message keeps them on lines
	// of their own, as javac prints them.
	if hasPrefix(t, "symbol:") || hasPrefix(t, "location:") {
		f.msg += "\n  " + t
	}
	return true
}

// isJavacHeader is a cheap test for the first line of a javac diagnostic.
func isJavacHeader(s string) bool {
	return strings.Contains(s, ".java:") && (strings.Contains(s, ": error: ") || strings.Contains(s, ": warning: "))
}

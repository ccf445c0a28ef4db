package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
)

// Go run-time reports that span several stacks: the race detector's (two
// accesses), test timeouts (every goroutine), and panics that the fuzzing
// engine prints indented inside a failed test's output.

// goRace is a data race report of the race detector, being read.
type goRace struct {
	msg     string
	cur     string // the current access, for its report's message
	test    string
	section int  // accesses seen: "Read at", then "Previous write at"
	access  bool // inside an access's stack (not a goroutine's creation)
	took    bool // the current access gave its frame
	locs    []finding
}

// raceLine reads "WARNING: DATA RACE" through its closing "=====" line,
// and reports the first workspace frame of each of the two accesses.
func (g *goTest) raceLine(p *parser, s string) bool {
	if s == "WARNING: DATA RACE" {
		g.race = &goRace{msg: s}
		return true
	}
	r := g.race
	t := strings.TrimSpace(s)
	switch {
	case hasPrefix(t, "=================="):
		for _, f := range r.locs {
			f.test = r.test
			if f.test == "" {
				f.test = g.running
			}
			p.emit(f)
		}
		g.race = nil
	case hasSuffix(t, ":") && !hasPrefix(t, "/"):
		low := strings.ToLower(t)
		switch {
		case hasPrefix(t, "Goroutine ") || strings.Contains(low, "created at"):
			r.access = false
		case strings.Contains(low, " at 0x") || hasPrefix(low, "read at") || hasPrefix(low, "write at") ||
			hasPrefix(low, "previous "):
			r.section++
			r.access, r.took = true, false
			r.cur = own("WARNING: DATA RACE: " + strings.TrimSuffix(t, ":"))
		}
	case hasPrefix(t, "/") || strings.Contains(t, ".go:"):
		if !r.access || r.took || r.section > 2 {
			return true
		}
		file, _, _ := strings.Cut(t, " +0x")
		if i := strings.LastIndexByte(file, ':'); i > 0 && allDigits(file[i+1:]) && !isForeign(file[:i]) && !hasSuffix(file[:i], "_testmain.go") {
			r.locs = append(r.locs, finding{file: own(file[:i]), line: atoi(file[i+1:]), typ: contract.ErrLogic, msg: r.cur,
				tool: "go test -race", conf: 0.75, base: p.base(), row: "go-panic"})
			r.took = true
		}
	default:
		if i := strings.LastIndex(t, ".Test"); i >= 0 && r.test == "" && !hasPrefix(t, "testing.") {
			r.test = own(strings.SplitN(t[i+1:], "(", 2)[0])
		}
	}
	return true
}

// timeoutLine reads the goroutine dump after "panic: test timed out after
// ...": "running tests:" names the tests, and the report is the deepest
// workspace frame of the goroutine whose stack runs one of them. It
// returns false when the dump is over.
func (g *goTest) timeoutLine(p *parser, s string) bool {
	pn := g.panic
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		g.endGoroutine(p)
		return true
	case hasPrefix(s, "\t\t") && !pn.frames:
		// "\t\tTestX (2s)" under "\trunning tests:"
		if name, _, ok := strings.Cut(t, " ("); ok && len(pn.timeout) < 16 {
			pn.timeout = append(pn.timeout, own(name))
		}
		return true
	case hasPrefix(s, "\t"):
		if m := reGoFrame.FindStringSubmatch(s); m != nil && pn.first == nil && !goStdFrame(m[1], pn.fn) &&
			!hasPrefix(pn.fn, "created by ") {
			g.learnGoRoot(p, m[1], pn.fn)
			pn.first = &finding{file: own(m[1]), line: atoi(m[2]), typ: contract.ErrLogic, msg: pn.msg,
				tool: "go test", conf: 0.8, base: p.base(), row: "go-panic"}
		}
		return true
	case hasPrefix(s, "goroutine "):
		g.endGoroutine(p)
		pn.frames = true
		return true
	case hasPrefix(s, "FAIL") || hasPrefix(s, "exit status") || hasPrefix(s, "ok "):
		g.endGoroutine(p)
		g.panic = nil
		return false
	}
	if pn.frames {
		pn.fn = s
		if hasPrefix(s, "testing.tRunner(") {
			pn.tRunner = true
		}
		if !hasPrefix(s, "created by ") && pn.hasTest == "" {
			if len(pn.timeout) == 0 {
				// Go before 1.20 does not list the running tests.
				if i := strings.LastIndex(s, ".Test"); i >= 0 && !hasPrefix(s, "testing.") {
					pn.hasTest = own(strings.SplitN(s[i+1:], "(", 2)[0])
				}
			}
			for _, name := range pn.timeout {
				if hasRunningChild(pn.timeout, name) {
					continue // a parent only waits in t.Run for its subtests
				}
				top, sub, _ := strings.Cut(name, "/")
				if sub == "" && strings.Contains(s, "."+top+"(") || sub != "" && strings.Contains(s, "."+top+".func") {
					pn.hasTest = name
					break
				}
			}
		}
	}
	return true
}

// hasRunningChild reports whether a subtest of name is running too.
func hasRunningChild(running []string, name string) bool {
	for _, r := range running {
		if hasPrefix(r, name+"/") {
			return true
		}
	}
	return false
}

// endGoroutine reports the goroutine just read if it runs a test that
// timed out.
func (g *goTest) endGoroutine(p *parser) {
	pn := g.panic
	if pn.hasTest != "" && pn.tRunner && pn.first != nil {
		f := *pn.first
		f.test = pn.hasTest
		p.emit(f)
	}
	pn.first, pn.hasTest, pn.fn, pn.tRunner = nil, "", "", false
}

// indentedPanicLine reads the stack of a panic that go test's fuzzing
// engine prints inside the failed test's output, every line indented. It
// returns false when the stack is over.
func (g *goTest) indentedPanicLine(p *parser, s string) bool {
	t := strings.TrimLeft(s, " ")
	if !hasPrefix(s, " ") || t == "" {
		g.panic = nil
		return false
	}
	g.panicLine(p, t)
	if g.panic != nil && g.panic.done {
		// The report is out; the rest of the stack is skipped.
		g.panic.frames = true
	}
	return true
}

// noteFuzzInput adds the failing input file the fuzzing engine wrote to
// the reports of the failed fuzz test.
func (g *goTest) noteFuzzInput(p *parser, t string) {
	note := "\n" + strings.TrimSpace(t)
	for i := range g.pending {
		if g.pending[i].test != "" && len(g.pending[i].msg) < 2000 {
			g.pending[i].msg = own(g.pending[i].msg + note)
		}
	}
	for i := range g.group {
		if len(g.group[i].msg) < 2000 {
			g.group[i].msg = own(g.group[i].msg + note)
		}
	}
	for i := len(p.out) - 1; i >= 0 && i >= len(p.out)-8; i-- {
		if r := &p.out[i]; r.TestName != nil && hasPrefix(r.Message, "panic: ") && len(r.Message) < 2000 {
			r.Message = own(r.Message + note)
		}
	}
}

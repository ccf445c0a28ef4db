package integrity

import (
	"go/scanner"
	"go/token"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

var (
	// A printf directive: %, flags, width, precision, verb.
	rePrintfVerb = lazyre.New(`%[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?[a-zA-Z]`)
	// go vet's printf finding of a verb of the wrong type for its argument.
	reVetWrongVerb = lazyre.New(`format %\S* has arg .+ of wrong type `)
	// go vet's printf findings that a print call's arguments answer: a
	// verb of the wrong type, a redundant newline, a directive in a
	// print call.
	reVetArgs = lazyre.New(`format %\S* has arg .+ of wrong type |arg list ends with redundant newline|call has possible Printf formatting directive %`)
	// go test's refusal of a test function's signature, with the one it wants.
	reWantSignature = lazyre.New(`wrong signature for \w+, must be: (func \w+\(\w+ \*testing\.[TBFM]\))`)
)

// neutralTestEdit reports whether a fix of a test file changes nothing a
// check depends on, so the test-file rule need not refuse it (every other
// rule still judges it): a Go file whose tokens and comments are unchanged
// (only formatting), or hunks whose every changed line is an import line, a
// printf verb go vet reported on that line, a test function's header
// given the signature go test's report asks for, or an identifier a report
// says is not declared, renamed (renameLine).
func (c *checker) neutralTestEdit() bool {
	if c.name == "go" && sameGoTokens(c.in.Original, c.in.Patched) {
		return true
	}
	if c.checksKept() {
		return true
	}
	for _, h := range c.hunks {
		if !c.neutralHunk(h) {
			return false
		}
	}
	return len(c.hunks) > 0
}

func (c *checker) neutralHunk(h hunk) bool {
	if c.importsOnly(h) {
		return true
	}
	if h.oldHi-h.oldLo != h.newHi-h.newLo {
		return false
	}
	for i, j := h.oldLo, h.newLo; i < h.oldHi; i, j = i+1, j+1 {
		a, b := c.old.lines[i].raw, c.new.lines[j].raw
		if a != b && !c.verbFixLine(i+1, a, b) && !c.signatureLine(a, b) && !c.renameLine(i+1, a, b) {
			return false
		}
	}
	return true
}

func (c *checker) importsOnly(h hunk) bool {
	n := 0
	for _, ls := range [][]line{c.old.lines[h.oldLo:h.oldHi], c.new.lines[h.newLo:h.newHi]} {
		for _, l := range ls {
			if strings.TrimSpace(l.raw) == "" || l.raw == ")" || strings.TrimSpace(l.raw) == "import (" {
				continue
			}
			if !c.lang.IsImportLine(l.raw) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// verbFixLine reports whether line n changed only in printf verbs, and a
// report of go vet's printf check names a verb of the wrong type there.
func (c *checker) verbFixLine(n int, a, b string) bool {
	if rePrintfVerb.ReplaceAllString(a, "%") != rePrintfVerb.ReplaceAllString(b, "%") {
		return false
	}
	for _, r := range c.in.Reports {
		if r.LineNumber == n && reVetWrongVerb.MatchString(r.Message) {
			return true
		}
	}
	return false
}

// signatureLine reports whether b is a test function's header with the
// signature a report of go test asks for, and a the same function's.
func (c *checker) signatureLine(a, b string) bool {
	for _, r := range c.in.Reports {
		m := reWantSignature.FindStringSubmatch(r.Message)
		if m == nil {
			continue
		}
		name := m[1][:strings.IndexByte(m[1], '(')+1] // "func TestX("
		if strings.HasPrefix(strings.TrimSpace(a), name) && strings.TrimSpace(b) == m[1]+" {" {
			return true
		}
	}
	return false
}

// sameGoTokens reports whether two Go sources have the same tokens,
// comments included (their spacing aside): only the layout differs.
func sameGoTokens(a, b string) bool {
	ta, oka := goTokens(a)
	tb, okb := goTokens(b)
	if !oka || !okb || len(ta) != len(tb) {
		return false
	}
	for i := range ta {
		if ta[i] != tb[i] {
			return false
		}
	}
	return true
}

type goTok struct {
	tok token.Token
	lit string
}

func goTokens(src string) ([]goTok, bool) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	bad := false
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), func(token.Position, string) { bad = true }, scanner.ScanComments)
	var out []goTok
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out, !bad
		}
		switch {
		case tok == token.SEMICOLON && lit == "\n":
			lit = ";" // an inserted semicolon is the same token as a written one
		case tok == token.COMMENT:
			lit = strings.Join(strings.Fields(lit), " ") // gofmt re-indents doc comments
		}
		out = append(out, goTok{tok, lit})
	}
}

// verbFixUnit reports whether an assertion changed only in the printf
// verbs of its literals, on lines where go vet reported a verb of the
// wrong type: its message's format, which checks nothing.
func (c *checker) verbFixUnit(u, v *unit) bool {
	if len(u.lits) != len(v.lits) {
		return false
	}
	for i := range u.lits {
		if rePrintfVerb.ReplaceAllString(u.lits[i], "%") != rePrintfVerb.ReplaceAllString(v.lits[i], "%") {
			return false
		}
	}
	for _, r := range c.in.Reports {
		if r.LineNumber >= u.lo+1 && r.LineNumber <= u.hi+1 && reVetWrongVerb.MatchString(r.Message) {
			return true
		}
	}
	return false
}

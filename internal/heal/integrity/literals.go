package integrity

import (
	"fmt"
	"strings"
)

// testLiterals finds literals of test code that a hunk removes or
// replaces: an expected value, a table row, a doctest's output. Literals a
// hunk only adds (a new case) are allowed; order counts.
func (c *checker) testLiterals() {
	if c.checksKept() {
		return // proven by the parser: every check is as it was
	}
	for _, h := range c.hunks {
		var olds, news []string
		first := -1
		for i := h.oldLo; i < h.oldHi; i++ {
			l := &c.old.lines[i]
			if !c.gone[i] || c.handled[i] || !l.test || len(c.old.lits(i)) == 0 || c.lang.IsImportLine(l.raw) {
				continue
			}
			if first < 0 {
				first = i
			}
			olds = append(olds, c.old.lits(i)...)
		}
		if first < 0 {
			continue
		}
		for j := h.newLo; j < h.newHi; j++ {
			if c.added[j] && !c.lang.IsImportLine(c.new.lines[j].raw) {
				news = append(news, c.new.lits(j)...)
			}
		}
		if subsequence(olds, news) {
			continue
		}
		gone, came := minus(olds, news), minus(news, olds)
		var what string
		switch {
		case len(gone) > 0 && len(came) > 0:
			what = fmt.Sprintf("`%s` became `%s` in test code", gone[0], came[0])
		case len(gone) > 0:
			what = fmt.Sprintf("`%s` was removed from test code", gone[0])
		default:
			what = "literals of test code were reordered"
		}
		c.add(RuleExpectedValueChanged, first+1, "%s", what+c.producedBy(RuleExpectedValueChanged, olds, news))
	}
}

// producedBy notes, for an expected value changed, when a new value is in
// a report's message: the value the code under test produces.
func (c *checker) producedBy(rule string, olds, news []string) string {
	if rule != RuleExpectedValueChanged {
		return ""
	}
	for _, v := range minus(news, olds) {
		v = strings.Trim(v, "\"'`")
		if v == "" {
			continue
		}
		for _, r := range c.in.Reports {
			if containsWord(r.Message, v) {
				return fmt.Sprintf(" (the new value %s is in the report's message: the expected value was changed to what the code produces)", v)
			}
		}
	}
	return ""
}

// containsWord reports whether s holds v not glued to a word character.
func containsWord(s, v string) bool {
	for off := 0; off <= len(s); {
		k := strings.Index(s[off:], v)
		if k < 0 {
			return false
		}
		a, b := off+k, off+k+len(v)
		if (a == 0 || !isWordByte(s[a-1])) && (b == len(s) || !isWordByte(s[b])) {
			return true
		}
		off = a + 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// subsequence reports whether a appears in b in order.
func subsequence(a, b []string) bool {
	k := 0
	for _, x := range b {
		if k < len(a) && a[k] == x {
			k++
		}
	}
	return k == len(a)
}

// minus returns a without the elements of b, as multisets, in a's order.
func minus[T comparable](a, b []T) []T {
	n := map[T]int{}
	for _, x := range b {
		n[x]++
	}
	var out []T
	for _, x := range a {
		if n[x] > 0 {
			n[x]--
			continue
		}
		out = append(out, x)
	}
	return out
}

// occurrences counts the matches of p on the lines of f in only, and
// returns the first line (preferring the lines in mark) with one.
func occurrences(p *pattern, f *file, only, mark []bool) (n, at int, text string) {
	at = -1
	for i := range f.lines {
		if !only[i] {
			continue
		}
		ms := p.re.FindAllString(p.text(&f.lines[i]), -1)
		n += len(ms)
		if len(ms) > 0 && (at < 0 || (mark[i] && !mark[at])) {
			at, text = i, ms[0]
		}
	}
	return n, at, text
}

// skipped finds a skip the fix adds, and a changed Go build constraint
// of a Go test file.
func (c *checker) skipped() {
	if c.checksKept() {
		return // proven by the parser: every check is as it was
	}
	for i := range skips {
		p := &skips[i]
		if !p.applies(c.name) {
			continue
		}
		before, _, _ := occurrences(p, c.old, c.oldDiff, c.gone)
		after, at, text := occurrences(p, c.new, c.newDiff, c.added)
		if after > before {
			c.add(RuleTestSkipped, at+1, "adds %s: `%s`", p.what, strings.TrimSpace(text))
		}
	}
	c.earlyReturns()
	if c.name == "go" && strings.HasSuffix(c.in.Path, "_test.go") {
		if a, b := buildLines(c.old), buildLines(c.new); a != b {
			c.add(RuleTestSkipped, 0, "the build constraint of the test file changed from %q to %q", a, b)
		}
	}
}

// earlyReturns finds a bare return added in test code with code after
// it in the same block: the checks below it no longer run.
func (c *checker) earlyReturns() {
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if !c.added[j] || !l.test || !earlyReturn.MatchString(l.mask) {
			continue
		}
		if k := nextCode(c.new, j); k >= 0 && indent(c.new.lines[k].raw) == indent(l.raw) {
			c.add(RuleTestSkipped, j+1, "adds an early `%s` in test code: the code after it no longer runs", strings.TrimSpace(l.key))
		}
	}
}

// nextCode returns the nearest line after i with code, or -1.
func nextCode(f *file, i int) int {
	for k := i + 1; k < len(f.lines); k++ {
		if !f.lines[k].blank() {
			return k
		}
	}
	return -1
}

// buildLines returns the //go:build lines of f.
func buildLines(f *file) string {
	var out []string
	for _, l := range f.lines {
		if strings.HasPrefix(strings.TrimSpace(l.comment), "//go:build") {
			out = append(out, strings.TrimSpace(l.comment))
		}
	}
	return strings.Join(out, "\n")
}

// removedTests finds a drop in the count of test declarations.
func (c *checker) removedTests() {
	if c.checksKept() {
		return // proven by the parser: every check is as it was
	}
	for i := range testDecls {
		p := &testDecls[i]
		if !p.applies(c.name) {
			continue
		}
		before, at, text := occurrences(p, c.old, c.oldDiff, c.gone)
		after, _, _ := occurrences(p, c.new, c.newDiff, c.added)
		if after < before {
			c.add(RuleTestRemoved, at+1, "%d %s removed or renamed out of the test runner's reach (`%s`)", before-after, p.what, strings.TrimSpace(text))
		}
	}
}

// suppressed finds a suppression the fix adds that no report asks for.
func (c *checker) suppressed() {
	for i := range suppressions {
		p := &suppressions[i]
		if !p.applies(c.name) {
			continue
		}
		have := map[string]int{}
		for k := range c.old.lines {
			if !c.oldDiff[k] {
				continue
			}
			for _, m := range p.re.FindAllString(p.text(&c.old.lines[k]), -1) {
				have[norm(m)]++
			}
		}
		for j := range c.new.lines {
			if !c.newDiff[j] {
				continue
			}
			for _, m := range p.re.FindAllString(p.text(&c.new.lines[j]), -1) {
				m = norm(m)
				if have[m] > 0 {
					have[m]--
					continue
				}
				if !c.asked(m) {
					c.add(RuleSuppressionAdded, j+1, "adds `%s`, which no report asks for", m)
				}
			}
		}
	}
}

// asked reports whether a report's message holds the suppression s.
func (c *checker) asked(s string) bool {
	for _, r := range c.in.Reports {
		if strings.Contains(norm(r.Message), s) {
			return true
		}
	}
	return false
}

// norm collapses blanks and trims.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

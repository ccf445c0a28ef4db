package integrity

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// maxUnitLines bounds how far an assertion's statement may run on, and
// maxUnitBytes how much of it is compared token by token.
const (
	maxUnitLines = 30
	maxUnitBytes = 8 << 10
)

// unit is one assertion: its statement's lines and the guard that makes
// it conditional, if any.
type unit struct {
	lo, hi  int // lines, inclusive
	key     string
	callees []string
	guarded bool
	shape   []string // tokens, identifiers other than the assertion vocabulary as "ID", literals as "LIT"
	names   []string // the identifiers behind each "ID", in order
	vocab   []string // assertion vocabulary words, in order
	ops     []string // comparison and logic operators, in order
	args    int      // top-level arguments of the first call, -1 when none
	lits    []string
	text    string // the first line, trimmed, for messages
}

// ident finds the identifiers of an assertion's match; the last is its
// callee.
var ident = lazyre.New(`#?[A-Za-z_$][\w$]*!?`)

// vocabulary are matcher and assertion words: they name what is checked,
// so they are part of an assertion's shape, not renamable identifiers.
var vocabulary = lazyre.New(`^(to[A-Z]\w*|not|Not\w*|to|to_not|not_to|be|be_\w+|been|eq|eql|equal|equals|exist|have|have_\w+|include|match|raise_error|satisfy|is[A-Z]\w*|has[A-Z]\w*|contains\w*|Equal\w*|Be[A-Z]\w*|Have[A-Z]\w*|Contain\w*|Match\w*|Succeed|HaveOccurred|True|False|Nil|Empty|NoError|Error[A-Z]\w*|Panics\w*|Greater\w*|Less\w*|InDelta\w*|InEpsilon\w*|Same|Subset|ElementsMatch|Regexp|IsType|should\w*|Should\w*|assert\w*|Assert\w*|expect\w*|Expect\w*|XCT\w*|deepEqual|strictEqual|notEqual|notStrictEqual|throws|rejects|doesNotThrow|ok|closeTo|above|below|least|most|within|lengthOf|instanceOf|called\w*|deep|strict|exactly|once|twice|times|never|if|else|elif|and|or|is|in|unless|return)$`)

// operators are compared in order; a changed one loosens a check.
var operators = []string{"===", "!==", "==", "!=", "<=", ">=", "&&", "||", "??", "<", ">", "!"}

// wordOps are the operators spelled as words.
var wordOps = map[string]bool{"and": true, "or": true, "not": true, "is": true, "in": true}

// assertionsOf returns the assertion patterns of the language name.
func assertionsOf(name string) []*pattern {
	var pats []*pattern
	for i := range assertions {
		if assertions[i].applies(name) {
			pats = append(pats, &assertions[i])
		}
	}
	return pats
}

// units returns the assertions of f found by pats that start on a line
// in win. Outside the windows both sides are the same text, so their
// units are the same and would cancel.
func units(f *file, pats []*pattern, win []bool) []unit {
	if len(pats) == 0 {
		return nil
	}
	var us []unit
	next := 0 // first line not in a unit
	for i := 0; i < len(f.lines); i++ {
		if !win[i] {
			continue
		}
		col := firstMatch(pats, f.lines[i].mask)
		if col < 0 {
			continue
		}
		lo, hi := i, statementEnd(f, i, col)
		if g := prevCode(f, i); g >= next && guard.MatchString(f.lines[g].mask) && indent(f.lines[i].raw) > indent(f.lines[g].raw) {
			lo = g
		}
		us = append(us, newUnit(f, lo, hi, lo != i))
		next, i = hi+1, hi
	}
	return us
}

// firstMatch returns the column of the earliest assertion on m, or -1.
func firstMatch(pats []*pattern, m string) int {
	best := -1
	for _, p := range pats {
		if loc := p.re.FindStringIndex(m); loc != nil && (best < 0 || loc[0] < best) {
			best = loc[0]
		}
	}
	return best
}

// statementEnd returns the last line of the statement that starts at line
// i, column col: brackets opened there are closed.
func statementEnd(f *file, i, col int) int {
	depth := 0
	for ln := i; ln < len(f.lines) && ln < i+maxUnitLines; ln++ {
		m := f.lines[ln].mask
		if ln == i {
			m = m[col:]
		}
		for k := 0; k < len(m); k++ {
			switch m[k] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
		}
		if depth <= 0 {
			return ln
		}
	}
	return min(len(f.lines)-1, i+maxUnitLines-1)
}

// prevCode returns the nearest line before i with code, or -1.
func prevCode(f *file, i int) int {
	for k := i - 1; k >= 0; k-- {
		if !f.lines[k].blank() {
			return k
		}
	}
	return -1
}

// newUnit returns the unit of lines lo..hi with its key; fill computes
// the rest when the unit is compared.
func newUnit(f *file, lo, hi int, guarded bool) unit {
	keys := make([]string, 0, hi-lo+1)
	for k := lo; k <= hi; k++ {
		keys = append(keys, f.lines[k].key)
	}
	return unit{lo: lo, hi: hi, guarded: guarded, key: strings.Join(keys, "\n")}
}

// fill computes the callees, literals and tokens of u.
func (u *unit) fill(f *file, pats []*pattern) {
	u.args, u.text = -1, strings.TrimSpace(f.lines[u.lo].raw)
	var masks []string
	for k := u.lo; k <= u.hi; k++ {
		l := &f.lines[k]
		masks = append(masks, l.mask)
		u.lits = append(u.lits, f.lits(k)...)
		for _, p := range pats {
			for _, m := range p.re.FindAllString(l.mask, -1) {
				ids := ident.FindAllString(m, -1)
				if len(ids) > 0 {
					u.callees = append(u.callees, ids[len(ids)-1])
				}
			}
		}
	}
	m := strings.Join(masks, " ")
	if len(m) > maxUnitBytes {
		m = m[:maxUnitBytes]
	}
	u.tokenize(m)
}

// tokenize fills the unit's shape, names, vocabulary, operators and
// argument count from its mask.
func (u *unit) tokenize(m string) {
	depth, argDepth := 0, -1
	for i := 0; i < len(m); {
		c := m[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '"':
			u.shape = append(u.shape, "LIT")
			i++
			continue
		}
		if loc := numberAt.FindStringIndex(m[i:]); loc != nil && loc[1] > 0 {
			w := m[i : i+loc[1]]
			i += loc[1]
			u.word(w)
			continue
		}
		op := string(c)
		for _, o := range operators {
			if strings.HasPrefix(m[i:], o) {
				op = o
				break
			}
		}
		i += len(op)
		if slices.Contains(operators, op) {
			u.ops = append(u.ops, op)
		}
		u.shape = append(u.shape, op)
		switch op {
		case "(", "[", "{":
			depth++
			if op == "(" && argDepth < 0 {
				argDepth, u.args = depth, 1
			}
		case ")", "]", "}":
			if depth == argDepth {
				argDepth = -2 // the first call is closed
			}
			depth--
		case ",":
			if depth == argDepth {
				u.args++
			}
		}
	}
}

// word adds one identifier or number token.
func (u *unit) word(w string) {
	switch {
	case !isIdentStart(w) || literalWord.MatchString(w):
		u.shape = append(u.shape, "LIT")
	case wordOps[w]:
		u.shape = append(u.shape, w)
		u.ops = append(u.ops, w)
	case vocabulary.MatchString(w):
		u.shape = append(u.shape, w)
		u.vocab = append(u.vocab, w)
	default:
		u.shape = append(u.shape, "ID")
		u.names = append(u.names, w)
	}
}

// compare returns the rule the change from u to v breaks and its
// detail, or "" when the change only renames identifiers.
func compare(u, v *unit) (string, string) {
	if !slices.Equal(u.shape, v.shape) {
		switch {
		case !slices.Equal(u.callees, v.callees):
			return RuleAssertionLoosened, "`" + strings.Join(u.callees, " ") + "` became `" + strings.Join(v.callees, " ") + "`"
		case v.guarded && !u.guarded:
			return RuleAssertionLoosened, "the assertion now runs only under a condition: `" + v.text + "`"
		case !slices.Equal(u.ops, v.ops):
			a, b := firstDiff(u.ops, v.ops)
			return RuleAssertionLoosened, "operator `" + a + "` became `" + b + "`"
		case !slices.Equal(u.vocab, v.vocab):
			a, b := firstDiff(u.vocab, v.vocab)
			return RuleAssertionLoosened, "matcher `" + a + "` became `" + b + "`"
		case v.args < u.args:
			return RuleAssertionLoosened, "an argument of the assertion was dropped"
		}
		return RuleAssertionLoosened, "the assertion changed beyond a rename of identifiers"
	}
	if a, b, ok := merged(u.names, v.names); ok {
		return RuleAssertionLoosened, "`" + a + "` and `" + b + "` became the same `" + lookup(u.names, v.names, a) + "`: the assertion compares a value with itself"
	}
	if !slices.Equal(u.lits, v.lits) {
		a, b := firstDiff(u.lits, v.lits)
		return RuleExpectedValueChanged, "`" + a + "` became `" + b + "` in an assertion"
	}
	return "", ""
}

// merged reports two different old identifiers that the change maps to
// one new identifier.
func merged(old, new []string) (string, string, bool) {
	from := map[string]string{}
	for k := range old {
		if k >= len(new) {
			break
		}
		if prev, ok := from[new[k]]; ok && prev != old[k] {
			return prev, old[k], true
		}
		from[new[k]] = old[k]
	}
	return "", "", false
}

func lookup(old, new []string, a string) string {
	for k := range old {
		if old[k] == a && k < len(new) {
			return new[k]
		}
	}
	return ""
}

// firstDiff returns the first differing elements of a and b ("nothing"
// past an end).
func firstDiff(a, b []string) (string, string) {
	for k := 0; k < max(len(a), len(b)); k++ {
		x, y := "nothing", "nothing"
		if k < len(a) {
			x = a[k]
		}
		if k < len(b) {
			y = b[k]
		}
		if x != y {
			return x, y
		}
	}
	return "nothing", "nothing"
}

// assertions finds assertions removed or changed: units of Original the
// fix removes are paired with units it adds near the same hunk; a removed
// unit without a partner is removed, a pair is compared.
func (c *checker) assertions() {
	if c.checksKept() {
		return // proven by the parser: every check is as it was
	}
	pats := assertionsOf(c.name)
	ou, nu := units(c.old, pats, window(len(c.old.lines), c.oldDiff, c.hunks, true)), units(c.new, pats, window(len(c.new.lines), c.newDiff, c.hunks, false))
	if len(ou) == 0 {
		return
	}
	count := map[string]int{}
	for _, u := range ou {
		count[u.key]++
	}
	for _, u := range nu {
		count[u.key]--
	}
	var removed, added []*unit
	def := map[string]int{}
	for k, n := range count {
		def[k] = n
	}
	for i := range ou {
		if def[ou[i].key] > 0 {
			def[ou[i].key]--
			removed = append(removed, &ou[i])
		}
	}
	for i := len(nu) - 1; i >= 0; i-- {
		if def[nu[i].key] < 0 {
			def[nu[i].key]++
			added = append(added, &nu[i])
		}
	}
	slices.Reverse(added)
	for _, u := range removed {
		u.fill(c.old, pats)
	}
	for _, u := range added {
		u.fill(c.new, pats)
	}
	paired := make([]bool, len(added))
	for _, r := range removed {
		for k := r.lo; k <= r.hi; k++ {
			c.handled[k] = true
		}
		v := c.partner(r, added, paired)
		if v == nil {
			c.add(RuleAssertionRemoved, r.lo+1, "`%s` is gone%s", r.text, c.commentedOut(r))
			continue
		}
		if rule, detail := compare(r, v); rule != "" && !(rule == RuleExpectedValueChanged && c.verbFixUnit(r, v)) {
			c.add(rule, r.lo+1, "%s", detail+c.producedBy(rule, r.lits, v.lits))
		}
	}
	for k, v := range added {
		if paired[k] {
			for j := v.lo; j <= v.hi; j++ {
				c.added[j] = false // judged here, not by the literal rule
			}
		}
	}
}

// partner returns the added unit that replaces r: near the same hunk,
// with the same callees if one has them.
func (c *checker) partner(r *unit, added []*unit, paired []bool) *unit {
	h := nearest(c.hunks, r.lo, r.hi, true)
	best := -1
	for k, v := range added {
		if paired[k] || nearest(c.hunks, v.lo, v.hi, false) != h {
			continue
		}
		if slices.Equal(v.callees, r.callees) {
			best = k
			break
		}
		if best < 0 {
			best = k
		}
	}
	if best < 0 {
		return nil
	}
	paired[best] = true
	return added[best]
}

// commentedOut says when the removed assertion's code is now in a comment.
func (c *checker) commentedOut(r *unit) string {
	k := c.old.lines[r.lo].key
	if r.guarded && r.lo < r.hi {
		k = c.old.lines[r.lo+1].key
	}
	if k == "" {
		return ""
	}
	for _, l := range c.new.lines {
		if strings.Contains(l.comment, k) {
			return " (commented out)"
		}
	}
	return ""
}

// window marks the lines within maxUnitLines+2 of a differing line or of
// a hunk (even an empty side of one) of one side of the diff.
func window(n int, diff []bool, hs []hunk, old bool) []bool {
	const w = maxUnitLines + 2
	win := make([]bool, n)
	mark := func(lo, hi int) {
		for k := max(0, lo-w); k < min(n, hi+w); k++ {
			win[k] = true
		}
	}
	for _, h := range hs {
		if old {
			mark(h.oldLo, h.oldHi)
		} else {
			mark(h.newLo, h.newHi)
		}
	}
	for k, d := range diff {
		if d {
			mark(k, k+1)
		}
	}
	return win
}

package integrity

import (
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// RuleEqualityWeakened is the id of the rule that refuses, in the code
// under test, a comparison or rendering method that no longer looks at
// the values it is given.
const RuleEqualityWeakened = "equality-weakened"

// A comparison that holds for any value turns the test's assertEqual,
// assert_eq! or assertEquals into a check of nothing; a rendering that
// ignores the value does the same to a test that compares its text.
var (
	// binaryMethod names the methods that compare two values.
	binaryMethod = lazyre.New(`\b(__(eq|ne|lt|le|gt|ge|cmp)__|equals|isEqual|Equal|Is|eq|ne|partial_cmp|cmp|lt|le|gt|ge|compareTo|operator)\b`)
	// memberRead is a read of a value's member: other.x, q.y, o[k].
	memberRead = lazyre.New(`\b([A-Za-z_$][\w$]*)\s*(\.\s*[A-Za-z_$]|\[)`)
	// receivers are the names a method reads its own value by.
	receivers = lazyre.New(`\b(self|this)\b`)
	// goReceiver is a Go method's receiver name, if it has one.
	goReceiver = lazyre.New(`^func\s+\(\s*([A-Za-z_]\w*)\s+[^)]*\)`)
)

// equality refuses a comparison or rendering method (lang.CheatEquality)
// the fix adds or edits whose body no longer reads its values: a
// comparison that reads no member of another value (`return True`, `o
// instanceof Point`), or a rendering that never reads its receiver.
// Where the body delegates in a way the rule cannot read (a helper that
// compares), it refuses too, saying so: a comparison should read the
// fields it compares.
func (c *checker) equality() {
	if !c.underTest() {
		return
	}
	match := brackets(c.new.text)
	for j := range c.new.lines {
		l := &c.new.lines[j]
		if l.test || l.blank() {
			continue
		}
		m := c.lang.CheatMatch(lang.CheatEquality, codeOf(l.raw, l.comment))
		if m == "" {
			continue
		}
		lo, hi := c.new.blockFrom(j, match)
		if lambda := strings.Index(l.mask, "lambda"); lambda >= 0 || hi < lo {
			hi = lo
		}
		edited := false
		for k := lo; k <= hi && k < len(c.new.lines); k++ {
			edited = edited || c.added[k]
		}
		if !edited {
			continue
		}
		body := c.body(lo, hi, m)
		if c.readsValues(body, m, l.mask) {
			continue
		}
		c.add(RuleEqualityWeakened, j+1, "the fix declares `%s` without reading the values it compares or renders: an assertion that calls it checks nothing", strings.TrimSpace(m))
	}
}

// body returns the code of lines lo..hi after the method's parameters.
func (c *checker) body(lo, hi int, header string) string {
	var b strings.Builder
	first := c.new.lines[lo].mask
	if k := strings.Index(first, strings.TrimSpace(header)); k >= 0 {
		first = first[k+len(strings.TrimSpace(header)):]
	}
	if k := strings.Index(first, "lambda"); k >= 0 {
		first = first[k:]
		if e := strings.IndexByte(first, ':'); e >= 0 {
			first = first[e+1:]
		}
	} else if e := closeParen(first); e >= 0 {
		first = first[e+1:]
	}
	b.WriteString(first)
	for k := lo + 1; k <= hi && k < len(c.new.lines); k++ {
		b.WriteString("\n" + c.new.lines[k].mask)
	}
	return b.String()
}

// closeParen returns the index of the ')' that closes the first '(' of s
// (the parameter list), or -1.
func closeParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth <= 0 {
				return i
			}
		}
	}
	return -1
}

// readsValues reports whether body reads what a method of header's kind
// must: a comparison, a member of a value other than its own receiver
// (other.x), and a rendering its receiver.
func (c *checker) readsValues(body, header, line string) bool {
	if binaryMethod.MatchString(header) {
		for _, m := range memberRead.FindAllStringSubmatch(body, -1) {
			switch m[1] {
			case "self", "this", "Self", "super", "Objects", "Arrays", "Math", "math", "std", "core", "cmp", "reflect", "bytes", "strings":
				continue
			}
			return true
		}
		return false
	}
	switch c.name {
	case "go":
		r := goReceiver.FindStringSubmatch(line)
		return r != nil && r[1] != "_" && wordIn(body, r[1])
	case "java", "c", "cpp":
		return true // fields read without a receiver's name
	}
	return receivers.MatchString(body)
}

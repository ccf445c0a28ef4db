package integrity

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// blockKind says how a test region that starts on a line ends.
type blockKind uint8

const (
	// braces: the first '{' at bracket depth 0 from the start (within
	// braceLookahead lines) to its '}'.
	braces blockKind = iota
	// parens: the first '(' of the match to its ')'.
	parens
	// indented: the start line and every following line indented deeper
	// (Python), with the decorators above it.
	indented
	// rubyEnd: up to the "end" or "}" at the start's indentation.
	rubyEnd
)

// braceLookahead is how many lines a region start may precede its '{'.
const braceLookahead = 12

// regionRule starts a test region inside any file: a test function, a
// test module, a test block.
type regionRule struct {
	langs []string
	start *lazyre.Regexp // matched on the mask line
	block blockKind
}

var (
	jvm    = []string{"java", "kotlin", "scala", "groovy"}
	jsts   = []string{"javascript", "typescript"}
	clangs = []string{"c", "cpp"}
)

// regionRules are the test regions of non-test files (Rust's unit tests
// live in src/, Go examples and JavaScript tests may sit beside the code).
var regionRules = []regionRule{
	{[]string{"go"}, lazyre.New(`^func\s+(Test|Example|Benchmark|Fuzz)\w*\s*\(`), braces},
	{[]string{"rust"}, lazyre.New(`^\s*#\[(cfg\(test\)|test|tokio::test|rstest|test_case)\b`), braces},
	{[]string{"python"}, lazyre.New(`^\s*((async\s+)?def\s+test\w*\s*\(|class\s+(Test\w*|\w+\(\s*(unittest\.)?TestCase\s*\))\s*[:(])`), indented},
	{jsts, lazyre.New(`(^|[^\w.$])(describe|it|test|suite|specify|context|bench)(\.\w+)*\s*\(`), parens},
	{jvm, lazyre.New(`^\s*@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b`), braces},
	{[]string{"scala"}, lazyre.New(`^\s*(test|it|describe)\s*\(`), parens},
	{[]string{"csharp"}, lazyre.New(`^\s*\[(Fact|Theory|Test|TestMethod|TestCase|InlineData|DataRow)\b`), braces},
	{clangs, lazyre.New(`^\s*(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|TEST_CASE|SCENARIO|BOOST_AUTO_TEST_CASE|BOOST_FIXTURE_TEST_CASE)\s*\(`), braces},
	{[]string{"swift"}, lazyre.New(`^\s*(func\s+test\w*\s*\(|@Test\b)`), braces},
	{[]string{"php"}, lazyre.New(`^\s*((public|protected|private)\s+)?(static\s+)?function\s+test\w*\s*\(|^\s*#\[Test\]`), braces},
	{[]string{"ruby"}, lazyre.New(`^\s*(describe|context|it|specify|scenario|test|def\s+test_\w*)\b`), rubyEnd},
}

// markTests sets line.test on the lines of f that are test code: all of
// them in a test file, else the regions the rules of language name find.
func markTests(f *file, name string, testFile bool) {
	if testFile {
		for i := range f.lines {
			f.lines[i].test = true
		}
		return
	}
	var rs []regionRule
	for _, r := range regionRules {
		if slices.Contains(r.langs, name) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return
	}
	match := brackets(f.text)
	for i := 0; i < len(f.lines); i++ {
		if f.lines[i].test {
			continue
		}
		for _, r := range rs {
			loc := r.start.FindStringIndex(f.lines[i].mask)
			if loc == nil {
				continue
			}
			lo, hi := f.region(i, loc[1], r.block, match)
			for k := lo; k <= hi && k < len(f.lines); k++ {
				f.lines[k].test = true
			}
			break
		}
	}
}

// brackets maps the offset of every opening bracket of text to the offset
// of its closing one (-1 when unclosed), in one pass.
func brackets(text string) map[int]int {
	match := map[int]int{}
	var stack []int
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '(', '[', '{':
			stack = append(stack, i)
			match[i] = -1
		case ')', ']', '}':
			open := byte('(')
			if c != ')' {
				open = c - 2 // '[' is ']'-2 and '{' is '}'-2 in ASCII
			}
			for k := len(stack) - 1; k >= 0; k-- {
				if text[stack[k]] == open {
					match[stack[k]] = i
					stack = stack[:k]
					break
				}
			}
		}
	}
	return match
}

// region returns the lines [lo, hi] of the region that starts on line i,
// whose match ends at column end.
func (f *file) region(i, end int, kind blockKind, match map[int]int) (int, int) {
	switch kind {
	case parens:
		open := strings.LastIndexByte(f.lines[i].mask[:end], '(')
		return i, f.closeLine(f.offs[i]+open, match, i)
	case indented:
		return f.decorators(i), f.indentedEnd(i)
	case rubyEnd:
		return i, f.rubyEnd(i)
	}
	depth := 0
	for ln := i; ln < len(f.lines) && ln <= i+braceLookahead; ln++ {
		m := f.lines[ln].mask
		for c := 0; c < len(m); c++ {
			switch m[c] {
			case '(', '[':
				depth++
			case ')', ']':
				depth--
			case '{':
				if depth <= 0 {
					return i, f.closeLine(f.offs[ln]+c, match, ln)
				}
			}
		}
	}
	return i, i
}

// closeLine returns the line of the bracket closing the one at off, or
// the last line when it is unclosed.
func (f *file) closeLine(off int, match map[int]int, from int) int {
	c, ok := match[off]
	if !ok {
		return from
	}
	if c < 0 {
		return len(f.lines) - 1
	}
	return f.lineAt(c)
}

// decorators returns the first line of the decorators above the Python
// definition on line i ("@pytest.mark.parametrize(…)" and its rows).
func (f *file) decorators(i int) int {
	top, in := i, indent(f.lines[i].raw)
	for k := i - 1; k >= 0; k-- {
		l := &f.lines[k]
		if l.blank() || indent(l.raw) > in {
			continue
		}
		t := strings.TrimSpace(l.mask)
		if indent(l.raw) < in || !(strings.HasPrefix(t, "@") || strings.IndexByte(")]}", t[0]) >= 0) {
			break
		}
		if strings.HasPrefix(t, "@") {
			top = k
		}
	}
	return top
}

// indentedEnd returns the last line of the block that line i opens.
func (f *file) indentedEnd(i int) int {
	in, last := indent(f.lines[i].raw), i
	for k := i + 1; k < len(f.lines); k++ {
		l := &f.lines[k]
		if l.blank() {
			continue
		}
		if indent(l.raw) <= in && !strings.HasPrefix(strings.TrimSpace(l.mask), ")") {
			break
		}
		last = k
	}
	return last
}

// rubyEnd returns the line of the "end" or "}" that closes the block line
// i opens: the first such line at the start's indentation.
func (f *file) rubyEnd(i int) int {
	in := indent(f.lines[i].raw)
	for k := i + 1; k < len(f.lines); k++ {
		l := &f.lines[k]
		if l.blank() {
			continue
		}
		t := strings.TrimSpace(l.mask)
		if indent(l.raw) < in || (indent(l.raw) == in && (t == "end" || strings.HasPrefix(t, "end ") || strings.HasPrefix(t, "}"))) {
			return k
		}
		if indent(l.raw) == in {
			return k - 1
		}
	}
	return len(f.lines) - 1
}

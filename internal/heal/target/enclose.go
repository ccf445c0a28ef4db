package target

import (
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
)

// maxFuncLines is the size past which the outermost function-like block
// around a line is taken to be a wrapper (a module closure, an IIFE) and
// the innermost one is used instead.
const maxFuncLines = 400

// The rows of the language table whose lexer reads each family of brace
// languages, for a file the table does not know by itself (Objective-C's
// .m reads as C++) and for text without a file (a C macro's body).
var (
	jsLex   = lang.ByName("javascript")
	javaLex = lang.ByName("java")
	rustLex = lang.ByName("rust")
	cLex    = lang.ByName("cpp")
)

// lexOf returns the row of the language table whose lexer reads the file
// at rel: its own, else its family's.
func lexOf(rel string, family *lang.Language) *lang.Language {
	if l := lang.Of(rel); l != nil {
		return l
	}
	return family
}

// span is a located declaration: 1-based inclusive lines and its name.
type span struct {
	start, end int
	name       string
	// test is set when the span sits in code marked as a test (Rust's
	// #[test] and #[cfg(test)]), which is never code to patch.
	test bool
}

// block is one {…} of a brace language, with the text before it.
type block struct {
	headerStart, open, close int // byte offsets in the source
	header                   string
}

// controlWords are the words before a parenthesis that make a block a
// statement, not a function.
var controlWords = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "catch": true, "synchronized": true,
	"with": true, "using": true, "lock": true, "foreach": true, "else": true, "do": true,
	"try": true, "return": true, "match": true, "loop": true, "unsafe": true, "new": true,
	"when": true, "sizeof": true, "typeof": true, "await": true, "yield": true,
}

// encloseBraces finds the function around line in a brace-language source:
// the one named hint if a block around the line has that name, else the
// outermost function-like block (the innermost when the outermost is very
// large). It returns false when no function-like block holds the line.
func encloseBraces(src string, lx *lang.Language, line int, hint string) (span, bool) {
	code := lx.Code(src)
	lines := lineStarts(code)
	var chain []span
	test := false
	for _, b := range braceBlocks(code) {
		s := span{start: lineOf(lines, headerStart(code, b.headerStart, b.open)), end: lineOf(lines, b.close)}
		if s.start > line || s.end < line {
			continue
		}
		test = test || testAttr(b.header)
		name, ok := funcName(b.header)
		if !ok {
			continue
		}
		s.name = name
		chain = append(chain, s)
	}
	if len(chain) == 0 {
		return span{}, false
	}
	// Outermost first: the larger span holds the smaller.
	sort.SliceStable(chain, func(i, j int) bool { return chain[i].end-chain[i].start > chain[j].end-chain[j].start })
	pick := chain[0]
	if pick.end-pick.start > maxFuncLines {
		pick = chain[len(chain)-1]
	}
	for i := len(chain) - 1; hint != "" && i >= 0; i-- {
		if chain[i].name == hint {
			pick = chain[i]
			break
		}
	}
	pick.test = test
	return pick, true
}

// testAttrs mark a block as test code in a brace language.
var testAttrs = []string{"#[test]", "#[cfg(test)]", "::test]", "#[bench]"}

func testAttr(header string) bool {
	for _, a := range testAttrs {
		if strings.Contains(header, a) {
			return true
		}
	}
	return false
}

// braceBlocks lists the balanced blocks of stripped code, each with the
// text since the previous ';', '{' or '}'.
func braceBlocks(code string) []block {
	type open struct{ at, header int }
	var stack []open
	var out []block
	boundary := 0
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '{':
			if len(stack) < 256 {
				stack = append(stack, open{at: i, header: boundary})
			}
			boundary = i + 1
		case '}':
			if n := len(stack); n > 0 {
				o := stack[n-1]
				stack = stack[:n-1]
				out = append(out, block{headerStart: o.header, open: o.at, close: i, header: code[o.header:o.at]})
			}
			boundary = i + 1
		case ';':
			boundary = i + 1
		}
	}
	return out
}

// funcName reports whether a block header declares a function, and its
// name ("" for an anonymous one): the identifier before the header's last
// parenthesised group, or the one bound by `name = (…) =>`.
func funcName(header string) (string, bool) {
	h := strings.TrimSpace(header)
	if body, ok := strings.CutSuffix(h, "=>"); ok {
		return arrowName(strings.TrimSpace(body)), true
	}
	open := lastGroup(h)
	if open < 0 {
		return "", false
	}
	before := strings.TrimSpace(skipGenerics(strings.TrimSpace(h[:open])))
	name := lastWord(before)
	rest := strings.TrimSpace(before[:len(before)-len(name)])
	if name == "" || controlWords[name] && lastWord(rest) != "fn" { // Rust's fn new is a function
		return "", false
	}
	if strings.HasSuffix(rest, "new") || strings.HasSuffix(rest, ".") {
		return "", false // new Foo() {…}, or a call with a trailing block
	}
	if name == "function" {
		return "", true
	}
	return name, true
}

// arrowName names an arrow function from what precedes its "=>": the
// binding in `const add = (a, b)` or `add: async x`, else "".
func arrowName(h string) string {
	if open := lastGroup(h); open >= 0 {
		h = h[:open]
	} else {
		h = h[:len(h)-len(lastWord(h))]
	}
	h = strings.TrimSpace(h)
	if rest, ok := strings.CutSuffix(h, "async"); ok && lastWord(h) == "async" {
		h = strings.TrimSpace(rest)
	}
	if rest, ok := strings.CutSuffix(h, "="); ok && !strings.HasSuffix(rest, "=") {
		return lastWord(strings.TrimSpace(rest))
	}
	if rest, ok := strings.CutSuffix(h, ":"); ok {
		return lastWord(strings.TrimSpace(rest))
	}
	return ""
}

// lastGroup returns the offset of the '(' that opens the last balanced
// top-level parenthesised group of h, skipping what follows it (return
// types, throws clauses), or -1.
func lastGroup(h string) int {
	depth, end := 0, -1
	for i := len(h) - 1; i >= 0; i-- {
		switch h[i] {
		case ')':
			if depth == 0 {
				end = i
			}
			depth++
		case '(':
			if depth == 0 {
				return -1
			}
			depth--
			if depth == 0 && end >= 0 {
				if !groupIsTrailer(h, i) {
					return i
				}
				end = -1
			}
		}
	}
	return -1
}

// groupIsTrailer reports whether the group opening at i follows a ')' or
// a "->"/":" return type, as in `fn f(x) -> Result<(), E>` or
// `func(a)(b)`: then the declaration's own group is further left.
func groupIsTrailer(h string, i int) bool {
	b := strings.TrimSpace(h[:i])
	return strings.HasSuffix(b, "->") || strings.HasSuffix(b, ",") || strings.HasSuffix(b, "<") || strings.HasSuffix(b, ")")
}

// skipGenerics drops a trailing <…> from s (Rust, Java, TS generics).
func skipGenerics(s string) string {
	if !strings.HasSuffix(s, ">") {
		return s
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case '>':
			depth++
		case '<':
			if depth--; depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// lastWord returns the identifier at the end of s.
func lastWord(s string) string {
	i := len(s)
	for i > 0 && isIdentByte(s[i-1]) {
		i--
	}
	return s[i:]
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// blankRange blanks b[from:to], keeping line breaks.
func blankRange(b []byte, from, to int) {
	for j := from; j < to; j++ {
		if b[j] != '\n' {
			b[j] = ' '
		}
	}
}

// headerStart returns the offset of the first code of a block's header,
// past blank space and C preprocessor lines (a Rust attribute stays).
func headerStart(code string, from, to int) int {
	for {
		i := firstNonSpace(code, from, to)
		if i >= to || code[i] != '#' || strings.HasPrefix(code[i:], "#[") {
			return i
		}
		nl := strings.IndexByte(code[i:to], '\n')
		if nl < 0 {
			return i
		}
		from = i + nl + 1
	}
}

// lineStarts returns the offset of the start of every line.
func lineStarts(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// lineOf maps a byte offset to its 1-based line.
func lineOf(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
}

func firstNonSpace(s string, from, to int) int {
	for i := from; i < to; i++ {
		if s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
			return i
		}
	}
	return to
}

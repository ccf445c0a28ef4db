package history

import (
	"strings"

	"github.com/salve-dev/salve/internal/lang"
)

// family is a group of languages whose files may reference each other's
// names: Go; C and C++; Python; JavaScript and TypeScript; Java; Rust.
type family string

// The families the tier knows.
const (
	famGo     family = "go"
	famC      family = "c"
	famPython family = "python"
	famJS     family = "js"
	famJava   family = "java"
	famRust   family = "rust"
)

// families maps a row of internal/lang to its family.
var families = map[string]family{
	"go": famGo, "c": famC, "cpp": famC, "python": famPython,
	"javascript": famJS, "typescript": famJS, "java": famJava,
	"rust": famRust,
}

// familyOf returns the family of the file at p, "" when the tier does not
// know its language.
func familyOf(p string) family {
	l := lang.Of(p)
	if l == nil {
		return ""
	}
	return families[l.Name]
}

// stringByte stands for every byte of a string literal in masked text: not
// an identifier byte, not a bracket, not a comma.
const stringByte = '\x01'

// mask returns src with its comments blanked (newlines kept) and its string
// literals replaced by stringByte, so that offsets stay those of src and
// a scan of the result sees code only. The expressions interpolated in a
// Python f-string or a JavaScript template literal stay code.
func mask(src, p string) string {
	return maskDepth(src, p, 0)
}

// maxInterpolation bounds the nesting of interpolations mask reads.
const maxInterpolation = 4

func maskDepth(src, p string, depth int) string {
	l := lang.Of(p)
	spans := l.Spans(src)
	if len(spans) == 0 {
		return src
	}
	b := []byte(src)
	for _, s := range spans {
		for i := s.Start; i < s.End && i < len(b); i++ {
			switch {
			case b[i] == '\n':
			case s.Kind == lang.String:
				b[i] = stringByte
			default:
				b[i] = ' '
			}
		}
		if s.Kind != lang.String || depth >= maxInterpolation {
			continue
		}
		for _, in := range l.Interpolations(src, s) {
			copy(b[in.Start:in.End], maskDepth(src[in.Start:in.End], p, depth+1))
		}
	}
	return string(b)
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// isName reports whether s is one identifier.
func isName(s string) bool {
	if s == "" || len(s) > maxName || !isIdentStart(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

// maxName bounds an identifier the tier acts on.
const maxName = 200

// token is one token of a line of code: an identifier, a number, a string
// literal or one punctuation byte, with its offsets.
type token struct {
	text       string
	start, end int
}

// tokens splits src, a line or a file, into tokens, skipping blanks and
// comments. String literals are one token each, their text as written.
func tokens(src, p string) []token {
	m := mask(src, p)
	var out []token
	for i := 0; i < len(m); {
		c := m[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == stringByte:
			j := i
			for j < len(m) && m[j] == stringByte {
				j++
			}
			out = append(out, token{src[i:j], i, j})
			i = j
			continue
		case isIdent(c):
			j := i
			for j < len(m) && isIdent(m[j]) {
				j++
			}
			out = append(out, token{src[i:j], i, j})
			i = j
			continue
		}
		out = append(out, token{src[i : i+1], i, i + 1})
		i++
	}
	return out
}

// sameTokens reports whether a and b are the same token sequence.
func sameTokens(a, b []token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].text != b[i].text {
			return false
		}
	}
	return true
}

// norm is the text of src's tokens joined by one blank: two texts that
// differ only in spacing and comments have the same norm.
func norm(src, p string) string {
	ts := tokens(src, p)
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.text
	}
	return strings.Join(parts, " ")
}

// span is a byte range [start, end) of a text.
type span struct{ start, end int }

// call is one call of a named function in a text: the offsets of its name
// and parentheses, and of each argument (trimmed of blanks).
type call struct {
	name         string
	nameAt       int
	open, close  int // offsets of "(" and ")"
	args         []span
	trailingComa bool
}

// Bounds of the call scanner, which reads hostile files: the text a
// call's arguments may span, and the calls one scan parses.
const (
	maxCallBytes = 16 << 10
	maxCalls     = 512
)

// calls returns the calls in masked text m whose closing parenthesis is
// found; want, when not nil, keeps only calls of the names it accepts. It
// parses at most maxCalls calls. A name
// followed by "(" counts as a call, so "if (" and "def f(" do too: the
// callers look names up in their evidence, where keywords never are.
func calls(m string, want func(string) bool) []call {
	var out []call
	parsed := 0
	for i := 0; i < len(m) && parsed < maxCalls; {
		if !isIdentStart(m[i]) || (i > 0 && isIdent(m[i-1])) {
			i++
			continue
		}
		j := i
		for j < len(m) && isIdent(m[j]) {
			j++
		}
		name := m[i:j]
		k := j
		for k < len(m) && (m[k] == ' ' || m[k] == '\t') {
			k++
		}
		if k < len(m) && m[k] == '(' && (want == nil || want(name)) {
			parsed++
			if c, ok := parseCall(m, k); ok {
				c.name, c.nameAt = name, i
				out = append(out, c)
			}
		}
		i = j
	}
	return out
}

// parseCall reads the arguments of the call whose "(" is at open.
func parseCall(m string, open int) (call, bool) {
	c := call{open: open}
	depth := 0
	start := open + 1
	limit := min(len(m), open+maxCallBytes)
	for i := open + 1; i < limit; i++ {
		switch m[i] {
		case '(', '[', '{':
			depth++
		case ']', '}':
			depth--
		case ')':
			if depth > 0 {
				depth--
				continue
			}
			c.close = i
			c.addArg(m, start, i, true)
			return c, true
		case ',':
			if depth == 0 {
				c.addArg(m, start, i, false)
				start = i + 1
			}
		}
		if depth < 0 {
			return call{}, false
		}
	}
	return call{}, false
}

// addArg adds the argument m[start:end], trimmed; an empty last one is a
// trailing comma (or no argument at all).
func (c *call) addArg(m string, start, end int, last bool) {
	for start < end && isBlank(m[start]) {
		start++
	}
	for end > start && isBlank(m[end-1]) {
		end--
	}
	if start == end && last {
		c.trailingComa = len(c.args) > 0
		return
	}
	c.args = append(c.args, span{start, end})
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lineSpan returns the byte range of line n (1-based) of src, without its
// newline; ok is false past the end.
func lineSpan(src string, n int) (span, bool) {
	if n < 1 {
		return span{}, false
	}
	start := 0
	for i := 1; i < n; i++ {
		k := strings.IndexByte(src[start:], '\n')
		if k < 0 {
			return span{}, false
		}
		start += k + 1
	}
	end := len(src)
	if k := strings.IndexByte(src[start:], '\n'); k >= 0 {
		end = start + k
	}
	if start == len(src) && n > 1 {
		return span{}, false
	}
	return span{start, end}, true
}

// named accepts one name.
func named(name string) func(string) bool { return func(s string) bool { return s == name } }

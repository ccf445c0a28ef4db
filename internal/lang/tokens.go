package lang

import "strings"

// A tokenizer for the proofs that read code token by token (the integrity
// policy's proof that a test file's edit keeps every check): Python's,
// JavaScript's (and TypeScript's) and Rust's (tokens_rust.go) tokens,
// with the comments aside. Where Spans only tells code from comments and
// literals, these give each token its kind, keep a JavaScript regular
// expression or a template literal whole, and give Python its logical
// lines and indentation. JavaScript's and Python's string literals, with
// the code interpolated in them (${…}, an f-string's {…}), are read by
// the lexer of their rows (literalEnd in lex.go), the one reading of
// interpolations.

// TokenKind is what a token is.
type TokenKind uint8

const (
	TokWord    TokenKind = iota + 1 // an identifier or a keyword
	TokNum                          // a numeric literal
	TokStr                          // a string literal with its prefix and quotes; a whole template literal
	TokOp                           // an operator or a bracket
	TokRegex                        // a JavaScript regular expression literal
	TokNewline                      // Python: the end of a logical line
	TokIndent                       // Python: a block opens
	TokDedent                       // Python: a block closes
)

// Token is one token.
type Token struct {
	Kind TokenKind
	Text string
	NL   bool // a line break comes before it (JavaScript reads statements by them)
}

// Tokens are a file's tokens and its comments' texts, in order.
type Tokens struct {
	Toks     []Token
	Comments []string
}

// MaxTokens bounds the tokens of one file; a larger file does not
// tokenize.
const MaxTokens = 200000

// TokensJS reads JavaScript or TypeScript into tokens, each marked when a
// line break precedes it. ok is false for what it cannot read: an
// unterminated string, template, comment or regular expression,
// unbalanced brackets, a stray byte, more than MaxTokens tokens.
func TokensJS(src string) (Tokens, bool) { return jsLex(src) }

// TokensPython reads Python into tokens, with its logical lines'
// ends, indents and dedents. ok is false for what it cannot read.
func TokensPython(src string) (Tokens, bool) { return pyLex(src) }

// IsNameByte reports whether c may be part of a JavaScript or Python
// name: a word byte or '$'.
func IsNameByte(c byte) bool { return isWordByte(c) || c == '$' }

// jsLex reads JavaScript or TypeScript into tokens, each marked when a
// line break precedes it. A template literal is one token; a '/' is a
// regular expression where an operand may start. ok is false for what
// it cannot read: an unterminated string, template, comment or regular
// expression, unbalanced brackets, a stray byte.
func jsLex(src string) (Tokens, bool) {
	var cx cLexer
	return cx.run(src, false, func(src string, i int) (int, bool) {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "/*"):
			k := strings.Index(src[i+2:], "*/")
			if k < 0 {
				return 0, false
			}
			i = cx.comment(src, i, i+2+k+2)
		case c == '"' || c == '\'' || c == '`':
			end, ok := byID["javascript"].literalEnd(src, i)
			if !ok {
				return 0, false
			}
			i = cx.emit(TokStr, src, i, end)
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			i = cx.emit(TokNum, src, i, numberEnd(src, i))
		case IsNameByte(c) || c == '#' && i+1 < len(src) && IsNameByte(src[i+1]):
			j := i + 1
			for j < len(src) && IsNameByte(src[j]) {
				j++
			}
			i = cx.emit(TokWord, src, i, j)
		case c == '/' && jsRegexAt(cx.Toks):
			end, ok := jsRegex(src, i)
			if !ok {
				return 0, false
			}
			i = cx.emit(TokRegex, src, i, end)
		default:
			op := opAt(src, i, jsOps)
			if op == "?." && i+2 < len(src) && src[i+2] >= '0' && src[i+2] <= '9' {
				op = "?" // a ? .5 : b
			}
			if !cx.nest(op) {
				return 0, false
			}
			i = cx.emit(TokOp, src, i, i+len(op))
		}
		return i, true
	})
}

// cLexer is what the tokenizers of the C-family syntaxes (JavaScript's,
// Rust's) share: the tokens so far, the brackets open, and whether a line
// break came since the last token.
type cLexer struct {
	Tokens
	stack []byte
	nl    bool
}

// start strips a byte-order mark and sets a "#!" first line aside as a
// comment, unless it is code (hashBang: Rust's "#![" attribute).
func (cx *cLexer) start(src string, hashBang bool) string {
	src = strings.TrimPrefix(src, "\ufeff")
	if strings.HasPrefix(src, "#!") && !(hashBang && strings.HasPrefix(src, "#![")) {
		end := lineEnd(src, 0)
		cx.Comments = append(cx.Comments, src[:end])
		src = strings.Repeat(" ", end) + src[end:]
	}
	return src
}

// space reads a blank, a line break or a "//" comment at i: ok and its
// end, or false when none is there.
func (cx *cLexer) space(src string, i int) (int, bool) {
	switch c := src[i]; {
	case c == ' ' || c == '\t' || c == '\f' || c == '\v':
		return i + 1, true
	case c == '\n' || c == '\r':
		cx.nl = true
		return i + 1, true
	case strings.HasPrefix(src[i:], "//"):
		end := lineEnd(src, i)
		cx.Comments = append(cx.Comments, strings.TrimRight(src[i:end], " \t\r"))
		return end, true
	}
	return i, false
}

// comment sets the block comment src[i:end] aside and returns end.
func (cx *cLexer) comment(src string, i, end int) int {
	cx.Comments = append(cx.Comments, src[i:end])
	cx.nl = cx.nl || strings.ContainsAny(src[i:end], "\n\r")
	return end
}

// emit adds the token src[i:end] of kind k and returns end.
func (cx *cLexer) emit(k TokenKind, src string, i, end int) int {
	cx.Toks = append(cx.Toks, Token{Kind: k, Text: src[i:end], NL: cx.nl})
	cx.nl = false
	return end
}

// nest opens or closes the bracket op is, if it is one; false for no
// operator, or a closer that closes no bracket open.
func (cx *cLexer) nest(op string) bool {
	switch op {
	case "":
		return false
	case "(", "[", "{":
		cx.stack = append(cx.stack, op[0])
	case ")", "]", "}":
		if len(cx.stack) == 0 || cx.stack[len(cx.stack)-1] != opener(op[0]) {
			return false
		}
		cx.stack = cx.stack[:len(cx.stack)-1]
	}
	return true
}

// run reads src: blanks, line breaks and line comments itself, anything
// else with step, which returns the end of what it read, or false when
// it cannot read what is at i.
func (cx *cLexer) run(src string, hashBang bool, step func(src string, i int) (int, bool)) (Tokens, bool) {
	src = cx.start(src, hashBang)
	for i := 0; i < len(src); {
		if len(cx.Toks) > MaxTokens {
			return cx.Tokens, false
		}
		end, ok := cx.space(src, i)
		if !ok {
			if end, ok = step(src, i); !ok {
				return cx.Tokens, false
			}
		}
		i = end
	}
	return cx.Tokens, cx.done()
}

// done reports whether the text read whole: every bracket closed, and
// no more than MaxTokens tokens.
func (cx *cLexer) done() bool {
	return len(cx.stack) == 0 && len(cx.Toks) <= MaxTokens
}

// jsRegexAt reports whether a '/' after toks starts a regular
// expression: at the start, after an operator or an opening bracket, or
// after a word that takes an operand.
func jsRegexAt(toks []Token) bool {
	if len(toks) == 0 {
		return true
	}
	switch t := &toks[len(toks)-1]; t.Kind {
	case TokOp:
		switch t.Text {
		case ")", "]", "}", "++", "--":
			return false
		}
		return true
	case TokWord:
		return jsRegexAfter[t.Text]
	}
	return false
}

// jsRegex returns the end of the regular expression literal at i, its
// flags included.
func jsRegex(src string, i int) (int, bool) {
	class := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if class {
				continue
			}
			j++
			for j < len(src) && IsNameByte(src[j]) {
				j++
			}
			return j, true
		case '\n', '\r':
			return 0, false
		}
	}
	return 0, false
}

// opener returns the opening bracket of the closing one c.
func opener(c byte) byte {
	if c == ')' {
		return '('
	}
	return c - 2 // '[' is ']'-2 and '{' is '}'-2 in ASCII
}

// pyLex reads Python source into tokens, with NEWLINE at the end of each
// logical line and INDENT and DEDENT around blocks, as Python's own
// tokenizer does. ok is false for what it cannot read: an unterminated
// string, unbalanced brackets, an inconsistent dedent, a stray byte.
func pyLex(src string) (Tokens, bool) {
	var lx Tokens
	indents := []int{0}
	depth := 0
	lineStart, pending := true, false
	emit := func(k TokenKind, text string) {
		lx.Toks = append(lx.Toks, Token{Kind: k, Text: text})
		pending = true
	}
	for i := 0; i < len(src); {
		if len(lx.Toks) > MaxTokens {
			return lx, false
		}
		if lineStart && depth == 0 {
			col, j := 0, i
		measure:
			for ; j < len(src); j++ {
				switch src[j] {
				case ' ':
					col++
				case '\t':
					col = col/8*8 + 8
				case '\f':
					col = 0
				default:
					break measure
				}
			}
			i, lineStart = j, false
			if j == len(src) || src[j] == '\n' || src[j] == '\r' || src[j] == '#' {
				lineStart = true // a blank line, or one holding only a comment
				if j < len(src) && src[j] == '#' {
					end := lineEnd(src, j)
					lx.Comments = append(lx.Comments, strings.TrimRight(src[j:end], " \t\r"))
					i = end
				}
				if i < len(src) {
					i++ // its line break
				}
				continue
			}
			switch top := indents[len(indents)-1]; {
			case col > top:
				indents = append(indents, col)
				lx.Toks = append(lx.Toks, Token{Kind: TokIndent})
			case col < top:
				for col < indents[len(indents)-1] {
					indents = indents[:len(indents)-1]
					lx.Toks = append(lx.Toks, Token{Kind: TokDedent})
				}
				if col != indents[len(indents)-1] {
					return lx, false
				}
			}
		}
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			i++
		case c == '\n' || c == '\r':
			if c == '\r' && i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			i++
			if depth == 0 {
				if pending {
					lx.Toks = append(lx.Toks, Token{Kind: TokNewline})
					pending = false
				}
				lineStart = true
			}
		case c == '\\':
			switch {
			case strings.HasPrefix(src[i:], "\\\n"):
				i += 2
			case strings.HasPrefix(src[i:], "\\\r\n"):
				i += 3
			default:
				return lx, false
			}
		case c == '#':
			end := lineEnd(src, i)
			lx.Comments = append(lx.Comments, strings.TrimRight(src[i:end], " \t\r"))
			i = end
		case c == '"' || c == '\'':
			end, ok := byID["python"].literalEnd(src, i)
			if !ok {
				return lx, false
			}
			emit(TokStr, src[i:end])
			i = end
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			end := numberEnd(src, i)
			emit(TokNum, src[i:end])
			i = end
		case isWordByte(c) || c >= 0x80:
			j := i
			for j < len(src) && (isWordByte(src[j]) || src[j] >= 0x80) {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && pyPrefix(src[i:j]) {
				at := j // an r, b or u prefix changes nothing the lexer reads
				if strings.ContainsAny(src[i:j], "fFtT") {
					at = i // a formatted literal: its {…} are code
				}
				end, ok := byID["python"].literalEnd(src, at)
				if !ok {
					return lx, false
				}
				emit(TokStr, src[i:end])
				i = end
				continue
			}
			emit(TokWord, src[i:j])
			i = j
		default:
			op := opAt(src, i, pyOps)
			if op == "" {
				return lx, false
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth--; depth < 0 {
					return lx, false
				}
			}
			emit(TokOp, op)
			i += len(op)
		}
	}
	if depth != 0 {
		return lx, false
	}
	if pending {
		lx.Toks = append(lx.Toks, Token{Kind: TokNewline})
	}
	for len(indents) > 1 {
		indents = indents[:len(indents)-1]
		lx.Toks = append(lx.Toks, Token{Kind: TokDedent})
	}
	return lx, len(lx.Toks) <= MaxTokens
}

// pyPrefix reports whether w is a string prefix (r, b, f, u, t and their
// pairs, any case).
func pyPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt":
		return true
	}
	return false
}

// opAt returns the longest operator of ops (longest first) at src[i:],
// or "".
func opAt(src string, i int, ops []string) string {
	for _, o := range ops {
		if strings.HasPrefix(src[i:], o) {
			return o
		}
	}
	return ""
}

// numberEnd returns the end of the numeric literal at i: digits,
// letters ('x', 'e', 'j', 'n', '_'…), dots, and a sign after a decimal
// exponent.
func numberEnd(src string, i int) int {
	hex := strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X")
	j := i
	for j < len(src) {
		c := src[j]
		switch {
		case isWordByte(c) || c == '.':
			j++
		case (c == '+' || c == '-') && !hex && j > i && (src[j-1] == 'e' || src[j-1] == 'E'):
			j++
		default:
			return j
		}
	}
	return j
}

// jsOps are JavaScript's and TypeScript's operators, longest first.
var jsOps = []string{">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "=>", "==", "!=", "<=",
	">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**", "<<", ">>",
	"{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "?", ":", "=", ".", "@"}

// pyOps are Python's operators, longest first.
var pyOps = []string{"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
	"+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "=", "!"}

// jsRegexAfter are the words after which '/' starts a regular
// expression.
var jsRegexAfter = map[string]bool{"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true}

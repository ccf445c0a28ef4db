package lang

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// This file is the project's one lexer of source text: it tells code from
// comments and string literals for every row of the table. Whoever needs
// code without its comments and literals (the gate, the integrity policy,
// the code-under-test resolver, the rules and history tiers) calls Spans,
// Code, Comments or Interpolations here; a test in internal/housetest
// fails if a second lexer appears elsewhere.

// Syntax describes the lexical elements a comment scanner must know.
type Syntax struct {
	// Line lists the line-comment openers ("//", "#").
	Line []string
	// NotLine lists texts that start with a line opener but are code (PHP's
	// "#[" attribute).
	NotLine []string
	// HashWordStart makes "#" open a comment only at the start of a word,
	// after a blank or one of ";&|(" (shell, YAML, Perl).
	HashWordStart bool
	// BlockOpen and BlockClose delimit block comments; empty when the
	// language has none.
	BlockOpen, BlockClose string
	// BlockNests means block comments nest (Rust, Swift, Kotlin, Scala):
	// each opener inside one needs a closer of its own.
	BlockNests bool
	// Quotes are the string delimiters, longest first.
	Quotes []Quote

	bytes *byteTables // built once for the table's rows
}

// byteTables say which bytes can begin what, so the lexer passes over
// the others at once.
type byteTables struct {
	// start: the first bytes of the comment openers and the delimiters of
	// the literals without a prefix.
	start [256]bool
	// afterPrefix: the bytes that may follow a literal's prefix word (a
	// delimiter's first byte, or '#'); empty when no literal has one.
	afterPrefix [256]bool
}

// tables returns sx's byte tables.
func (sx *Syntax) tables() *byteTables {
	if sx.bytes != nil {
		return sx.bytes
	}
	t := &byteTables{}
	for _, o := range append(slices.Clone(sx.Line), sx.BlockOpen) {
		if o != "" {
			t.start[o[0]] = true
		}
	}
	for _, q := range sx.Quotes {
		switch {
		case q.Delim == "":
		case len(q.Prefixes) > 0:
			t.afterPrefix[q.Delim[0]] = true
			t.afterPrefix['#'] = t.afterPrefix['#'] || q.Hashes
		default:
			t.start[q.Delim[0]] = true
		}
	}
	return t
}

// Quote is one kind of string literal.
type Quote struct {
	// Prefixes, when set, are the words that open this literal when one of
	// them stands at the start of a word right before Delim (Python's f
	// and rf, Rust's r and br, C++'s R and u8R, Scala's s); the literal's
	// span then starts at the word.
	Prefixes []string
	// Delim opens the literal, and closes it unless Close is set.
	Delim string
	// Close closes the literal when it differs from Delim (C#'s @"…").
	Close string
	// Escape means a backslash escapes the next byte.
	Escape bool
	// Multiline means the literal may span lines; otherwise a newline ends it.
	Multiline bool
	// Char means a character literal: it counts only when it holds one
	// character or one escape, so a Rust lifetime or a C++ digit separator
	// is not taken for a quote.
	Char bool
	// Hashes means any number of '#' may stand between the prefix and
	// Delim, and the literal closes only at Delim followed by as many
	// (Rust's r#"…"#).
	Hashes bool
	// Delimited means Delim is followed by a delimiter of at most 16
	// characters and "(", and the literal closes at ")", the delimiter and
	// Delim (C++'s R"x(…)x"); without the "(" this is not the literal.
	Delimited bool
	// Interp opens an expression inside the literal: "${" in a JavaScript
	// template or a Kotlin string, "{" in a Python f-string, "#{" in Ruby,
	// `\(` in Swift. The expression is code, may hold literals and comments
	// of its own, and runs to the bracket that closes Interp's last byte;
	// the literal does not close inside it. Where Interp is "{", "{{" is a
	// brace of the text.
	Interp string
}

// Kind says what a Span of source text is.
type Kind uint8

// The kinds of span.
const (
	// String is a string or character literal, delimiters and prefix
	// included, with any expressions interpolated in it.
	String Kind = iota + 1
	// Comment is a line comment (without its newline) or a block comment
	// (delimiters included).
	Comment
	// Interpolation is the code of an expression interpolated in a string
	// literal, without its brackets (see Interpolations).
	Interpolation
)

// Span is one string literal or comment of a source text, as byte offsets
// [Start, End). Text between spans is code.
type Span struct {
	Kind       Kind
	Start, End int
}

// maxInterp bounds how deep interpolations nest; an opener deeper than
// that is read as text of its literal.
const maxInterp = 16

// Spans returns the string literals and comments of src in order. It is a
// lexer approximation, good enough to tell code from text and to notice a
// removed comment; an unterminated literal or comment runs to its line's
// end (or the text's end when it may span lines). A nil Language returns
// nil.
func (l *Language) Spans(src string) []Span {
	if l == nil {
		return nil
	}
	lx := lexer{sx: &l.Syntax, src: src}
	lx.code(0, 0, 0)
	return lx.out
}

// Interpolations returns the code interpolated in the string literal s of
// src, a span Spans returned: the inside of a JavaScript template's ${…},
// a Python f-string's {…}, a Ruby string's #{…}, in order, as spans of
// kind Interpolation. Literals nested in them have their own, not listed
// here. Anything else returns nil.
func (l *Language) Interpolations(src string, s Span) []Span {
	if l == nil || s.Kind != String || s.Start < 0 || s.End > len(src) || s.Start >= s.End {
		return nil
	}
	lx := lexer{sx: &l.Syntax, src: src[:s.End]}
	var out []Span
	lx.literal(s.Start, 0, &out)
	return out
}

// Code returns src with its comments and string literals blanked out
// (newlines kept, so lines and columns stay where they were): what is
// left is code. A nil Language returns src as it is.
func (l *Language) Code(src string) string {
	if l == nil {
		return src
	}
	lx := lexer{sx: &l.Syntax, src: src, blank: []byte(src)}
	lx.code(0, 0, 0)
	return string(lx.blank)
}

// Hollow returns src with the insides of its string literals blanked and
// its comments as they are: a literal keeps its first byte, and its last
// when that is a quote that closed it, so a reader counting brackets or
// looking for names sees no literal's text yet still sees where each
// stands. Offsets and newlines stay. A nil Language returns src.
func (l *Language) Hollow(src string) string {
	spans := l.Spans(src)
	if len(spans) == 0 {
		return src
	}
	b := []byte(src)
	for _, s := range spans {
		if s.Kind != String {
			continue
		}
		last := s.End
		if c := src[s.End-1]; s.End-1 > s.Start && (c == '"' || c == '\'' || c == '`') {
			last--
		}
		for i := s.Start + 1; i < last; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// SplitLine splits one line of source before the comment that ends it (a
// line comment, or a block comment that runs to the line's end): code is
// the text before it, comment the rest. A comment that closes inside the
// line stays in code, and a comment opener inside a literal is no comment.
// Without such a comment, or with a nil Language, comment is "".
func (l *Language) SplitLine(line string) (code, comment string) {
	spans := l.Spans(line)
	if n := len(spans); n > 0 && spans[n-1].Kind == Comment && spans[n-1].End == len(line) {
		return line[:spans[n-1].Start], line[spans[n-1].Start:]
	}
	return line, ""
}

// Comments returns the trimmed texts of the comments of src, in order,
// skipping empty ones. A nil Language returns nil.
func (l *Language) Comments(src string) []string {
	var out []string
	for _, s := range l.Spans(src) {
		if s.Kind != Comment {
			continue
		}
		if t := strings.TrimSpace(src[s.Start:s.End]); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// lexer reads one source text with one syntax.
type lexer struct {
	sx  *Syntax
	src string
	out []Span // the spans of the top level
	// blank, when set, is a copy of src in which the spans are blanked
	// instead of listed in out.
	blank []byte
	// strict marks broken what the lenient reading lets run to a line's
	// or the text's end: a literal, an interpolation or a comment that
	// does not close (the tokenizers' literals, which must close).
	strict, broken bool
}

// literalEnd returns the end of the literal of l that starts at i (at its
// prefix or its quote), its interpolations included, read by the lexer
// every row uses; ok is false when none starts there or when it, or
// anything inside its interpolations, does not close.
func (l *Language) literalEnd(src string, i int) (int, bool) {
	lx := lexer{sx: &l.Syntax, src: src, strict: true}
	end, ok := lx.literal(i, 0, nil)
	return end, ok && !lx.broken
}

// code reads code from i. With closer 0 it reads to the end of the text;
// otherwise to the first closer byte that no opener since i matches, and
// returns that byte's offset (len(src) when there is none). Spans are
// recorded at depth 0 only: deeper code is inside a literal's span.
func (lx *lexer) code(i int, closer byte, depth int) int {
	src, sx := lx.src, lx.sx
	bt := sx.tables()
	opener := bracketOpener(closer)
	open := 0
	for i < len(src) {
		c := src[i]
		switch {
		case closer != 0 && c == opener:
			open++
			i++
			continue
		case closer != 0 && c == closer:
			if open == 0 {
				return i
			}
			open--
			i++
			continue
		case isWordByte(c):
			// A word holds no comment or quote; it may prefix a literal.
			w := wordEnd(src, i)
			if w < len(src) && bt.afterPrefix[src[w]] {
				if end, ok := lx.prefixed(i, w, depth, nil); ok {
					lx.emit(String, i, end, depth)
					i = end
					continue
				}
			}
			i = w
			continue
		case !bt.start[c]:
			i++
			continue
		}
		if sx.lineComment(src, i) {
			end := lineEnd(src, i)
			lx.emit(Comment, i, end, depth)
			i = end
			continue
		}
		if sx.BlockOpen != "" && strings.HasPrefix(src[i:], sx.BlockOpen) {
			end := sx.blockEnd(src, i)
			if lx.strict && !strings.HasSuffix(src[i+len(sx.BlockOpen):end], sx.BlockClose) {
				lx.broken = true
			}
			lx.emit(Comment, i, end, depth)
			i = end
			continue
		}
		if end, ok := lx.literal(i, depth, nil); ok {
			lx.emit(String, i, end, depth)
			i = end
			continue
		}
		i++
	}
	if closer != 0 {
		lx.broken = true
	}
	return len(src)
}

func (lx *lexer) emit(k Kind, start, end, depth int) {
	switch {
	case depth > 0:
	case lx.blank != nil:
		for i := start; i < end; i++ {
			if lx.blank[i] != '\n' {
				lx.blank[i] = ' '
			}
		}
	default:
		lx.out = append(lx.out, Span{k, start, end})
	}
}

// literal returns the end of the literal starting at i, if one does: at a
// word, a literal with that prefix; elsewhere one of the plain quotes.
// The interpolations of the literal itself go to collect when it is set.
func (lx *lexer) literal(i, depth int, collect *[]Span) (int, bool) {
	src := lx.src
	if isWordByte(src[i]) {
		if i > 0 && isWordByte(src[i-1]) {
			return 0, false
		}
		return lx.prefixed(i, wordEnd(src, i), depth, collect)
	}
	for k := range lx.sx.Quotes {
		q := &lx.sx.Quotes[k]
		if len(q.Prefixes) > 0 || !strings.HasPrefix(src[i:], q.Delim) {
			continue
		}
		if q.Char {
			return charEnd(src, i)
		}
		if end, ok := lx.quote(q, i, depth, collect); ok {
			return end, true
		}
	}
	return 0, false
}

// prefixed returns the end of the literal opened by the word src[i:w], if
// the word is a prefix of one.
func (lx *lexer) prefixed(i, w, depth int, collect *[]Span) (int, bool) {
	src := lx.src
	if w == len(src) {
		return 0, false
	}
	for k := range lx.sx.Quotes {
		q := &lx.sx.Quotes[k]
		if len(q.Prefixes) == 0 || src[w] != q.Delim[0] && !(q.Hashes && src[w] == '#') || !contains(q.Prefixes, src[i:w]) {
			continue
		}
		if end, ok := lx.quote(q, w, depth, collect); ok {
			return end, true
		}
	}
	return 0, false
}

// quote reads a literal of q whose hashes or Delim start at j.
func (lx *lexer) quote(q *Quote, j, depth int, collect *[]Span) (int, bool) {
	src := lx.src
	hashes := 0
	for q.Hashes && j < len(src) && src[j] == '#' && hashes < 256 {
		j++
		hashes++
	}
	if !strings.HasPrefix(src[j:], q.Delim) {
		return 0, false
	}
	j += len(q.Delim)
	closer := q.Delim
	if q.Close != "" {
		closer = q.Close
	}
	if q.Delimited {
		d, ok := rawDelimiter(src, j)
		if !ok {
			return 0, false
		}
		j += len(d) + 1
		closer = ")" + d + closer
	}
	if hashes > 0 {
		closer += strings.Repeat("#", hashes)
	}
	return lx.body(q, j, closer, depth, collect), true
}

// body reads a literal's text from j to just past its closer.
func (lx *lexer) body(q *Quote, j int, closer string, depth int, collect *[]Span) int {
	src := lx.src
	var interp0 byte
	if q.Interp != "" {
		interp0 = q.Interp[0]
	}
	for j < len(src) {
		if c := src[j]; c != closer[0] && c != '\n' && c != '\\' && (interp0 == 0 || c != interp0) {
			j++
			continue
		}
		if q.Interp != "" && depth < maxInterp && strings.HasPrefix(src[j:], q.Interp) {
			if q.Interp == "{" && j+1 < len(src) && src[j+1] == '{' {
				j += 2
				continue
			}
			start := j + len(q.Interp)
			end := lx.code(start, bracketCloser(q.Interp[len(q.Interp)-1]), depth+1)
			if collect != nil {
				*collect = append(*collect, Span{Interpolation, start, end})
			}
			j = end + 1
			continue
		}
		switch {
		case q.Escape && src[j] == '\\':
			j += 2
			continue
		case strings.HasPrefix(src[j:], closer):
			return j + len(closer)
		case src[j] == '\n' && !q.Multiline:
			lx.broken = true
			return j
		}
		j++
	}
	lx.broken = true
	return len(src)
}

// rawDelimiter returns the delimiter of a C++ raw string whose text
// starts at j: at most 16 characters, none of them a blank, a backslash,
// a quote or a parenthesis, then "(".
func rawDelimiter(src string, j int) (string, bool) {
	for k := j; k < len(src) && k <= j+16; k++ {
		switch src[k] {
		case '(':
			return src[j:k], true
		case ' ', '\t', '\n', '\r', '\v', '\f', '\\', ')', '"':
			return "", false
		}
	}
	return "", false
}

// lineComment reports whether a line comment starts at i.
func (sx *Syntax) lineComment(src string, i int) bool {
	for _, o := range sx.Line {
		if !strings.HasPrefix(src[i:], o) {
			continue
		}
		for _, n := range sx.NotLine {
			if strings.HasPrefix(src[i:], n) {
				return false
			}
		}
		if o == "#" && sx.HashWordStart && i > 0 && !strings.ContainsRune(" \t\n\r;&|(", rune(src[i-1])) {
			return false
		}
		return true
	}
	return false
}

// blockEnd returns the end of the block comment opened at i: just past
// its closer (the matching one where comments nest), or the text's end.
func (sx *Syntax) blockEnd(src string, i int) int {
	j := i + len(sx.BlockOpen)
	if !sx.BlockNests {
		if k := strings.Index(src[j:], sx.BlockClose); k >= 0 {
			return j + k + len(sx.BlockClose)
		}
		return len(src)
	}
	for depth := 1; j < len(src); {
		switch {
		case strings.HasPrefix(src[j:], sx.BlockClose):
			j += len(sx.BlockClose)
			if depth--; depth == 0 {
				return j
			}
		case strings.HasPrefix(src[j:], sx.BlockOpen):
			j += len(sx.BlockOpen)
			depth++
		default:
			j++
		}
	}
	return len(src)
}

// charEnd returns the end of a character literal at i: one escape
// sequence (at most 12 bytes) or one rune between quotes.
func charEnd(src string, i int) (int, bool) {
	j := i + 1
	if j < len(src) && src[j] == '\\' {
		for k := j + 2; k < len(src) && k < j+12; k++ {
			if src[k] == '\'' {
				return k + 1, true
			}
			if src[k] == '\n' {
				break
			}
		}
		return 0, false
	}
	if j >= len(src) || src[j] == '\'' || src[j] == '\n' {
		return 0, false
	}
	_, n := utf8.DecodeRuneInString(src[j:])
	if j+n < len(src) && src[j+n] == '\'' {
		return j + n + 1, true
	}
	return 0, false
}

func lineEnd(src string, i int) int {
	if k := strings.IndexByte(src[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(src)
}

// isWordByte reports whether c belongs to a word: a letter, a digit, '_'
// or a byte of a multi-byte character. No comment opener or quote starts
// with one (TestTable holds the table to that).
func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func wordEnd(src string, i int) int {
	for i < len(src) && isWordByte(src[i]) {
		i++
	}
	return i
}

// bracketCloser returns the bracket that closes open, or 0.
func bracketCloser(open byte) byte {
	switch open {
	case '{':
		return '}'
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return 0
}

// bracketOpener returns the bracket that close closes, or 0.
func bracketOpener(close byte) byte {
	switch close {
	case '}':
		return '{'
	case ')':
		return '('
	case ']':
		return '['
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

package lang

import (
	"strings"
	"unicode/utf8"
)

// TokensRust reads Rust into tokens, each marked when a line break
// precedes it, with its comments (line, block and doc comments; block
// comments nest) aside. A string literal (plain, byte, C, raw with its
// hashes) and a character literal are one TokStr; a lifetime or a label
// ('a) and a raw identifier (r#type) one TokWord; an attribute is its
// tokens ('#', '[', …). ok is false for what it cannot read: an
// unterminated literal or comment, unbalanced brackets, a stray byte,
// more than MaxTokens tokens.
func TokensRust(src string) (Tokens, bool) {
	var cx cLexer
	return cx.run(src, true, func(src string, i int) (int, bool) {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "/*"):
			end, ok := rustBlockComment(src, i)
			if !ok {
				return 0, false
			}
			i = cx.comment(src, i, end)
		case c == '"':
			end, ok := rustString(src, i+1)
			if !ok {
				return 0, false
			}
			i = cx.emit(TokStr, src, i, end)
		case c == '\'':
			end, k, ok := rustQuote(src, i)
			if !ok {
				return 0, false
			}
			i = cx.emit(k, src, i, end)
		case c >= '0' && c <= '9':
			i = cx.emit(TokNum, src, i, rustNumberEnd(src, i))
		case isWordByte(c) || c >= utf8.RuneSelf:
			j := i
			for j < len(src) && (isWordByte(src[j]) || src[j] >= utf8.RuneSelf) {
				j++
			}
			if end, ok, lit := rustPrefixed(src, i, j); lit {
				if !ok {
					return 0, false
				}
				i = cx.emit(TokStr, src, i, end)
				return i, true
			}
			if src[i:j] == "r" && j+1 < len(src) && src[j] == '#' && isWordByte(src[j+1]) {
				k := j + 1
				for k < len(src) && isWordByte(src[k]) {
					k++
				}
				j = k // a raw identifier, r#type
			}
			i = cx.emit(TokWord, src, i, j)
		default:
			op := opAt(src, i, rustOps)
			if !cx.nest(op) {
				return 0, false
			}
			i = cx.emit(TokOp, src, i, i+len(op))
		}
		return i, true
	})
}

// rustOps are Rust's operators and punctuation, longest first.
var rustOps = []string{"<<=", ">>=", "...", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=",
	"%=", "^=", "&=", "|=", "<<", ">>", "..",
	"+", "-", "*", "/", "%", "^", "!", "&", "|", "=", "<", ">", "@", ".", ",", ";", ":", "#", "$", "?", "~",
	"(", ")", "[", "]", "{", "}"}

// rustBlockComment returns the end of the block comment opening at i;
// block comments nest.
func rustBlockComment(src string, i int) (int, bool) {
	depth := 0
	for i < len(src) {
		switch {
		case strings.HasPrefix(src[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(src[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i, true
			}
		default:
			i++
		}
	}
	return 0, false
}

// rustString returns the end of a string literal whose body starts at j
// (past its opening '"'): escapes are skipped, line breaks are text.
func rustString(src string, j int) (int, bool) {
	for j < len(src) {
		switch src[j] {
		case '\\':
			j += 2
			continue
		case '"':
			return j + 1, true
		}
		j++
	}
	return 0, false
}

// rustRawString returns the end of a raw string literal whose hashes
// start at j (r#"…"#: as many hashes close it as open it).
func rustRawString(src string, j int) (int, bool) {
	k := j
	for k < len(src) && src[k] == '#' {
		k++
	}
	if k >= len(src) || src[k] != '"' {
		return 0, false
	}
	closer := "\"" + src[j:k]
	end := strings.Index(src[k+1:], closer)
	if end < 0 {
		return 0, false
	}
	return k + 1 + end + len(closer), true
}

// rustPrefixed reads the literal that the word src[i:j] prefixes: b"…",
// c"…", r"…", r#"…"#, br…, cr…, b'…'. lit is false when the word is no
// such prefix or no literal follows it.
func rustPrefixed(src string, i, j int) (end int, ok, lit bool) {
	if j >= len(src) {
		return 0, false, false
	}
	w, next := src[i:j], src[j]
	switch {
	case (w == "b" || w == "c") && next == '"':
		end, ok = rustString(src, j+1)
		return end, ok, true
	case w == "b" && next == '\'':
		end, _, ok = rustQuote(src, j)
		return end, ok, true
	case (w == "r" || w == "br" || w == "cr") && (next == '"' || next == '#' && j+1 < len(src) && (src[j+1] == '"' || src[j+1] == '#')):
		end, ok = rustRawString(src, j)
		return end, ok, true
	}
	return 0, false, false
}

// rustQuote reads what a quote at i opens: a character literal ('x',
// '\n', '\u{1F600}', a TokStr) or a lifetime or label ('a, a TokWord).
func rustQuote(src string, i int) (int, TokenKind, bool) {
	j := i + 1
	if j >= len(src) {
		return 0, 0, false
	}
	if src[j] == '\\' {
		k := strings.IndexByte(src[j+1:], '\'')
		if k < 0 || k > 10 {
			return 0, 0, false
		}
		if k == 0 && j+2 < len(src) && src[j+2] == '\'' {
			k = 1 // '\''
		}
		return j + 1 + k + 1, TokStr, true
	}
	_, size := utf8.DecodeRuneInString(src[j:])
	if j+size < len(src) && src[j+size] == '\'' {
		return j + size + 1, TokStr, true
	}
	if !isWordByte(src[j]) && src[j] < utf8.RuneSelf {
		return 0, 0, false
	}
	k := j
	for k < len(src) && (isWordByte(src[k]) || src[k] >= utf8.RuneSelf) {
		k++
	}
	return k, TokWord, true
}

// rustNumberEnd returns the end of the numeric literal at i, as
// numberEnd reads it, but before a range's "..": 0..n is three tokens.
func rustNumberEnd(src string, i int) int {
	end := numberEnd(src, i)
	if k := strings.Index(src[i:end], ".."); k >= 0 {
		end = i + k
	}
	return end
}

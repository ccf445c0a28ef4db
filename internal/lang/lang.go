// Package lang is the project's one table of programming languages: for
// each language its file names, its comment and string syntax, the shape
// of an import line and the paths of its test files. The fix gate, the
// integrity policy and any other reader of source files without a parser
// look languages up here instead of keeping their own tables.
//
// Every function takes a repository-relative path with forward slashes;
// paths come from repositories and logs and are treated as hostile text.
package lang

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/salve-dev/salve/internal/lazyre"
)

// Language is one row of the table. Rows are read-only.
type Language struct {
	// Name is the row's stable lower-case id: "go", "python", "typescript".
	Name string
	// Extensions are the file extensions, lower case with the dot.
	Extensions []string
	// Filenames are exact base names without a telling extension
	// ("Makefile", "Jenkinsfile").
	Filenames []string
	// Syntax is how comments and strings are written.
	Syntax Syntax

	imports   *lazyre.Regexp // one import line; nil when the language has none
	testNames []string       // path.Match patterns on a test file's base name
	testDirs  []string       // lower-case directory patterns ("tests", "src/test") whose files are tests
}

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
	// Quotes are the string delimiters, longest first.
	Quotes []Quote
}

// Quote is one kind of string literal.
type Quote struct {
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
}

// Of returns the row for the file at p, by exact base name first and then
// by extension; nil when the language is unknown.
func Of(p string) *Language {
	base := path.Base(p)
	if l, ok := byName[base]; ok {
		return l
	}
	return byExt[strings.ToLower(path.Ext(base))]
}

// ByName returns the row whose Name is name, or nil.
func ByName(name string) *Language { return byID[name] }

// All returns every row, in table order. The rows must not be modified.
func All() []*Language { return table }

var (
	byExt  = index(func(l *Language) []string { return l.Extensions })
	byName = index(func(l *Language) []string { return l.Filenames })
	byID   = index(func(l *Language) []string { return []string{l.Name} })
)

func index(keys func(*Language) []string) map[string]*Language {
	m := map[string]*Language{}
	for _, l := range table {
		for _, k := range keys(l) {
			if _, dup := m[k]; !dup {
				m[k] = l
			}
		}
	}
	return m
}

// IsImportLine reports whether line is an import line of l (a Go import or
// import-block line, a Python import, a C include, a Rust use…). A nil
// Language has none.
func (l *Language) IsImportLine(line string) bool {
	if l == nil || l.imports == nil {
		return false
	}
	return l.imports.MatchString(line)
}

// Kind says what a Span of source text is.
type Kind uint8

// The kinds of span.
const (
	// String is a string or character literal, delimiters included.
	String Kind = iota + 1
	// Comment is a line comment (without its newline) or a block comment
	// (delimiters included).
	Comment
)

// Span is one string literal or comment of a source text, as byte offsets
// [Start, End). Text between spans is code.
type Span struct {
	Kind       Kind
	Start, End int
}

// Spans returns the string literals and comments of src in order. It is a
// lexer approximation, good enough to tell code from text and to notice a
// removed comment; an unterminated literal or comment runs to its line's
// end (or the text's end when it may span lines). A nil Language returns
// nil.
func (l *Language) Spans(src string) []Span {
	if l == nil {
		return nil
	}
	var out []Span
	sx := &l.Syntax
	for i := 0; i < len(src); {
		if n := sx.lineComment(src, i); n > 0 {
			end := lineEnd(src, i)
			out = append(out, Span{Comment, i, end})
			i = end
			continue
		}
		if sx.BlockOpen != "" && strings.HasPrefix(src[i:], sx.BlockOpen) {
			end := len(src)
			if k := strings.Index(src[i+len(sx.BlockOpen):], sx.BlockClose); k >= 0 {
				end = i + len(sx.BlockOpen) + k + len(sx.BlockClose)
			}
			out = append(out, Span{Comment, i, end})
			i = end
			continue
		}
		if end, ok := sx.quoted(src, i); ok {
			out = append(out, Span{String, i, end})
			i = end
			continue
		}
		i++
	}
	return out
}

// lineComment returns the opener's length when a line comment starts at i.
func (sx *Syntax) lineComment(src string, i int) int {
	for _, o := range sx.Line {
		if !strings.HasPrefix(src[i:], o) {
			continue
		}
		for _, n := range sx.NotLine {
			if strings.HasPrefix(src[i:], n) {
				return 0
			}
		}
		if o == "#" && sx.HashWordStart && i > 0 && !strings.ContainsRune(" \t\n\r;&|(", rune(src[i-1])) {
			return 0
		}
		return len(o)
	}
	return 0
}

// quoted returns the end of the literal starting at i, if one does.
func (sx *Syntax) quoted(src string, i int) (int, bool) {
	for _, q := range sx.Quotes {
		if !strings.HasPrefix(src[i:], q.Delim) {
			continue
		}
		if q.Char {
			return charEnd(src, i)
		}
		closer := q.Delim
		if q.Close != "" {
			closer = q.Close
		}
		j := i + len(q.Delim)
		for j < len(src) {
			switch {
			case q.Escape && src[j] == '\\':
				j += 2
				continue
			case strings.HasPrefix(src[j:], closer):
				return j + len(closer), true
			case src[j] == '\n' && !q.Multiline:
				return j, true
			}
			j++
		}
		return len(src), true
	}
	return 0, false
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

// Package lang is the project's one table of programming languages: for
// each language its file names, its comment and string syntax, the shape
// of an import line and the paths of its test files; and the one lexer
// that reads the syntax to tell code from comments and literals (Spans,
// Code, Hollow, SplitLine, Comments, Interpolations). The fix gate, the
// integrity policy and any other reader of source files without a parser
// look languages up here instead of keeping their own tables or lexers.
//
// Every function takes a repository-relative path with forward slashes;
// paths come from repositories and logs and are treated as hostile text.
package lang

import (
	"path"
	"strings"

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

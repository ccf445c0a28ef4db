package adapter

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/history"
	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/safefile"
)

var _ heal.DeclFinder = Targets{}

// Bounds of the search for declarations.
const (
	maxDeclFiles    = 3000
	maxDeclFileSize = 1 << 20
	maxDecls        = 24
	// maxDeclIndent keeps declarations at the top level or one level in
	// (a class's methods): a local variable of some other function is
	// not what a reported line names.
	maxDeclIndent = 4
)

// skipDeclDirs are folders the search never enters: dependencies, build
// output, virtual environments.
var skipDeclDirs = map[string]bool{"node_modules": true, "vendor": true, "target": true, "build": true, "dist": true,
	"__pycache__": true, "venv": true, "out": true}

// Declarations finds where names are declared in the non-test files of
// workspace whose language family is from's, with the history tier's
// table of declaration lines; each region spans the declaration: to the
// bracket that closes its body, or over its indented block. The walk is
// bounded, enters no hidden or dependency folder, and never follows a
// symlink.
func (t Targets) Declarations(ctx context.Context, workspace, from string, names []string) ([]heal.Region, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []heal.Region
	n := 0
	err := filepath.WalkDir(workspace, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil || len(out) >= maxDecls {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != workspace && (skipDeclDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > maxDeclFiles {
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(workspace, p)
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if !history.SameFamily(from, rel) || lang.IsTestFile(rel) {
			return nil
		}
		b, err := safefile.Read(p, maxDeclFileSize)
		if err != nil {
			return nil
		}
		out = append(out, declsIn(rel, string(b), want)...)
		return nil
	})
	if len(out) > maxDecls {
		out = out[:maxDecls]
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	_ = err
	return out, nil
}

// declsIn returns the declarations of the wanted names in one file.
func declsIn(rel, content string, want map[string]bool) []heal.Region {
	lines := strings.Split(content, "\n")
	code := strings.Split(lang.Of(rel).Code(content), "\n")
	var out []heal.Region
	for i, line := range lines {
		if indent(line) > maxDeclIndent {
			continue
		}
		name, ok := history.Declared(line, rel)
		if !ok || !want[name] {
			continue
		}
		out = append(out, heal.Region{Path: rel, Start: i + 1, End: declEnd(code, i), Symbol: name, Why: "declaration"})
	}
	return out
}

// maxDeclSpan bounds the lines one declaration spans.
const maxDeclSpan = 2000

// declEnd returns the last line (1-based) of the declaration that starts
// at index i of code (comments and strings blanked): where the brace its
// header opens closes, else the end of the block indented under a header
// that ends in ':' (a Python def or class), else the header's last line.
func declEnd(code []string, i int) int {
	parens, braces, opened := 0, 0, false
	for j := i; j < len(code) && j < i+maxDeclSpan; j++ {
		for _, c := range code[j] {
			switch c {
			case '(', '[':
				parens++
			case ')', ']':
				parens--
			case '{':
				braces++
				opened = true
			case '}':
				braces--
			}
		}
		switch {
		case opened && braces <= 0:
			return j + 1
		case opened || parens > 0:
			continue
		case strings.HasSuffix(strings.TrimSpace(code[j]), ":"):
			return indentedEnd(code, i)
		default:
			return j + 1
		}
	}
	return i + 1
}

// indentedEnd returns the last line (1-based) of the block indented under
// line index i.
func indentedEnd(code []string, i int) int {
	base := indent(code[i])
	end := i
	for j := i + 1; j < len(code) && j < i+maxDeclSpan; j++ {
		if strings.TrimSpace(code[j]) == "" {
			continue
		}
		if indent(code[j]) <= base {
			break
		}
		end = j
	}
	return end + 1
}

// indent is the width of a line's leading blanks, a tab counting as four.
func indent(line string) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

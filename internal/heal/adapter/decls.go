package adapter

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/history"
	"github.com/salve-dev/salve/internal/heal/undertest"
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
	// (a class's methods, one tab or four spaces): a local variable of
	// some other function is not what a reported line names.
	maxDeclIndent = 4
)

// Declarations finds where names are declared in the non-test files of
// workspace whose language family is from's, with the history tier's
// table of declaration lines; each region is a declaration's first line.
// The walk is bounded, enters no folder heal.SkipFolder names, and never
// follows a symlink.
func (t Targets) Declarations(ctx context.Context, workspace, from string, names []string) ([]undertest.Region, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []undertest.Region
	n := 0
	err := filepath.WalkDir(workspace, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil || len(out) >= maxDecls {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != workspace && heal.SkipFolder(d.Name()) {
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

// declsIn returns the declarations of the wanted names in one file, at
// the top level or one level in.
func declsIn(rel, content string, want map[string]bool) []undertest.Region {
	var out []undertest.Region
	for i, line := range strings.Split(content, "\n") {
		if heal.Indent(line) > maxDeclIndent {
			continue
		}
		name, ok := history.Declared(line, rel)
		if !ok || !want[name] {
			continue
		}
		out = append(out, undertest.Region{Path: rel, Start: i + 1, End: i + 1, Symbol: name, Why: "declaration"})
	}
	return out
}

package aidercall

import (
	"context"
	"fmt"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Finding is one diagnostic of [Validate].
type Finding struct {
	// Pos is file:line:column, the file relative to the folder Validate
	// ran in when it lies below it.
	Pos      string `json:"pos"`
	Analyzer string `json:"analyzer"`
	Message  string `json:"message"`
}

// String renders f as go vet does: "file:line:col: message".
func (f Finding) String() string { return f.Pos + ": " + f.Message }

// loadMode is what the analyzers need: syntax and types of the packages
// named, and only export data of their dependencies.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// Validate loads the packages that patterns name (go list patterns, such
// as ./...), from dir, and runs analyzers over them (Analyzer when none is
// given). It returns the findings sorted by position, or an error when a
// package does not load or an analyzer fails. Loading runs the go command.
func Validate(ctx context.Context, dir string, patterns []string, analyzers ...*analysis.Analyzer) ([]Finding, error) {
	if len(analyzers) == 0 {
		analyzers = []*analysis.Analyzer{Analyzer}
	}
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	cfg := &packages.Config{Context: ctx, Dir: dir, Mode: loadMode}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("validate: load %s: %w", strings.Join(patterns, " "), err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("validate: no packages match %s", strings.Join(patterns, " "))
	}
	var loadErrs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, e.Error())
		}
	}
	if len(loadErrs) > 0 {
		return nil, fmt.Errorf("validate: packages do not load:\n%s", strings.Join(loadErrs, "\n"))
	}
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	type keyed struct {
		pos token.Position
		f   Finding
	}
	var found []keyed
	for _, act := range graph.Roots {
		if act.Err != nil {
			return nil, fmt.Errorf("validate: %s on %s: %w", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			if rel, err := filepath.Rel(absDir(dir), pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
				pos.Filename = rel
			}
			found = append(found, keyed{pos, Finding{Pos: pos.String(), Analyzer: act.Analyzer.Name, Message: d.Message}})
		}
	}
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i].pos, found[j].pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	out := make([]Finding, len(found))
	for i, k := range found {
		out[i] = k.f
	}
	return out, nil
}

func absDir(dir string) string {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return abs
}

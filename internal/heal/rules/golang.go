package rules

import (
	"context"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/rules/deadvar"
	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/textdist"
)

var (
	reUnusedImport = lazyre.New(`"([^"]+)" imported (?:as \w+ )?and not used`)
	reUndefined    = lazyre.New(`undefined: ([A-Za-z_]\w*)\s*$`)
	reFormatting   = lazyre.New(`(?i)gofmt|not (?:properly )?formatted|formatting`)
)

// fixGoImports removes unused imports and adds missing ones, editing only
// import lines. Missing names are resolved against the standard library
// and the packages of the file's own module.
func fixGoImports(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	content, removed := removeUnusedImports(in.content, in.reports)
	content, added, conf := addMissingImports(content, in)
	if len(removed)+len(added) == 0 {
		return edit{}, false, nil
	}
	var parts []string
	if len(removed) > 0 {
		parts = append(parts, "remove unused import "+strings.Join(removed, ", "))
	}
	if len(added) > 0 {
		parts = append(parts, "add missing import "+strings.Join(added, ", "))
	}
	return edit{content: content, reason: strings.Join(parts, " and "), confidence: conf}, true, nil
}

func parseImports(content string) (*token.FileSet, *ast.File, bool) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", content, parser.ImportsOnly|parser.ParseComments)
	return fset, file, err == nil
}

func removeUnusedImports(content string, reports []contract.BugReport) (string, []string) {
	fset, file, ok := parseImports(content)
	if !ok {
		return content, nil
	}
	type span struct{ from, to int }
	var spans []span
	var removed []string
	for _, r := range reports {
		m := reUnusedImport.FindStringSubmatch(r.Message)
		if m == nil {
			continue
		}
		decl, spec := findImport(file, m[1])
		if spec == nil {
			continue
		}
		node := ast.Node(spec)
		if !decl.Lparen.IsValid() || len(decl.Specs) == 1 {
			node = decl
		}
		from, to := fset.Position(node.Pos()).Line, fset.Position(node.End()).Line
		if node == ast.Node(spec) && spec.Doc != nil {
			from = fset.Position(spec.Doc.Pos()).Line
		}
		spans = append(spans, span{from, to})
		removed = append(removed, strconv.Quote(m[1]))
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from > spans[j].from })
	ls := splitContent(content)
	last := 1 << 30
	for _, s := range spans {
		if s.to >= last {
			continue // overlapping (same declaration twice)
		}
		ls.remove(s.from, s.to)
		// A whole declaration gone leaves two blank lines: keep one.
		if s.from >= 2 && s.from <= len(ls.l) && strings.TrimSpace(ls.l[s.from-2]) == "" && strings.TrimSpace(ls.l[s.from-1]) == "" {
			ls.remove(s.from, s.from)
		}
		last = s.from
	}
	return ls.String(), removed
}

func findImport(file *ast.File, path string) (*ast.GenDecl, *ast.ImportSpec) {
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, s := range gd.Specs {
			if is := s.(*ast.ImportSpec); importPath(is) == path {
				return gd, is
			}
		}
	}
	return nil, nil
}

func importPath(is *ast.ImportSpec) string {
	p, _ := strconv.Unquote(is.Path.Value)
	return p
}

// importedNames returns the names the file's imports bind.
func importedNames(file *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, is := range file.Imports {
		if is.Name != nil {
			names[is.Name.Name] = true
			continue
		}
		p := importPath(is)
		names[p[strings.LastIndex(p, "/")+1:]] = true
	}
	return names
}

func addMissingImports(content string, in ruleInput) (string, []string, float64) {
	_, file, ok := parseImports(content)
	if !ok {
		return content, nil, 0.95
	}
	paths, conf := resolveGoNames(in, importedNames(file))
	if len(paths) == 0 {
		return content, nil, conf
	}
	out, ok := addGoImports(content, paths)
	if !ok {
		return content, nil, conf
	}
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = strconv.Quote(p)
	}
	return out, quoted, conf
}

// fixGoUnusedVar removes what the compiler reports as "declared and not
// used": the declaration and the dead assignments of the variable in its
// function (deadvar), keeping each value's side effects: a call stays as a
// statement, `x, err := f()` becomes `_, err := f()`, and a value whose
// calls cannot stand alone becomes `_ = value`, said in the reason. A
// variable that is unused only because its use is misspelled is left to
// the suggest tier.
func fixGoUnusedVar(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	content := in.content
	var did []string
	for _, r := range in.reports {
		name := deadvar.Name(r.Message)
		if name == "" || misspelledUse(name, in.reports) {
			continue
		}
		// one at a time: a statement may hold two unused names
		line := r.LineNumber
		if len(did) > 0 {
			line = remapReports(in.content, content, []contract.BugReport{r})[0].LineNumber
		}
		rm, ok := deadvar.Find(content, name, line)
		if !ok {
			continue
		}
		out, ok := deadvar.Apply(content, []deadvar.Removal{rm})
		if !ok {
			continue
		}
		content = out
		did = append(did, unusedReason(rm))
	}
	if len(did) == 0 {
		return edit{}, false, nil
	}
	return edit{content: content, reason: strings.Join(did, "; "), confidence: 0.9}, true, nil
}

// unusedReason says what a removal did, and why what stays stays.
func unusedReason(rm deadvar.Removal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "remove unused variable %s (declared on line %d", rm.Name, rm.Decl)
	if len(rm.Assigns) > 0 {
		ls := make([]string, len(rm.Assigns))
		for i, l := range rm.Assigns {
			ls[i] = strconv.Itoa(l)
		}
		fmt.Fprintf(&b, ", assigned and never read on line %s", strings.Join(ls, ", "))
	}
	b.WriteString(")")
	for _, k := range rm.Kept {
		if strings.HasPrefix(k, "_ = ") {
			fmt.Fprintf(&b, "; its value keeps its calls as `%s`, since Go cannot state that expression alone and dropping it would skip the calls", k)
		} else {
			fmt.Fprintf(&b, "; keep the call `%s` for its side effects", k)
		}
	}
	if rm.Blanked {
		b.WriteString("; the statement declares other names too, so its place becomes `_`")
	}
	return b.String()
}

// fixGofmt applies gofmt's changes (goimports' for its reports) that fall
// within ±3 lines of a formatting report, and only those. A listing or a
// diff is reported once per changed run of lines, at the run's middle
// (logparse), so every run of up to seven lines is within its report's
// window.
func fixGofmt(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	var wanted []contract.BugReport
	for _, r := range in.reports {
		if reFormatting.MatchString(r.Message) || r.Rule == "gofmt" || r.Tool == "gofmt" || r.Tool == "goimports" {
			wanted = append(wanted, r)
		}
	}
	if len(wanted) == 0 {
		return edit{}, false, nil
	}
	// gofmt's formatting, which also sorts each block of imports. A
	// goimports report gets the same: goimports' regrouping of the
	// standard library apart is not applied, because its package
	// (golang.org/x/tools/imports) costs every salve start 0.8 MB of
	// allocations at init; adding and removing imports is go-imports'
	// job, from the compiler's reports.
	tool := "gofmt"
	if reportedTool(wanted, "goimports") {
		tool = "goimports"
	}
	formatted, err := format.Source([]byte(in.content))
	if err != nil {
		return edit{}, false, nil
	}
	var keep []heal.Hunk
	for _, h := range heal.LineDiff(in.content, string(formatted)) {
		if near(h, wanted) {
			keep = append(keep, h)
		}
	}
	if len(keep) == 0 {
		return edit{}, false, nil
	}
	out := applyHunks(in.content, keep)
	return edit{content: out, reason: fmt.Sprintf("%s %s", tool, hunkLines(keep)), confidence: 0.95}, true, nil
}

// reportedTool reports whether a report comes from tool (or names it as
// its rule).
func reportedTool(reports []contract.BugReport, tool string) bool {
	for _, r := range reports {
		if r.Tool == tool || r.Rule == tool {
			return true
		}
	}
	return false
}

// hunkLines names the original lines the kept hunks change.
func hunkLines(hs []heal.Hunk) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		lo, hi := h.OldStart, h.OldStart+len(h.Old)-1
		switch {
		case len(h.Old) == 0:
			parts[i] = fmt.Sprintf("after line %d", lo-1)
		case lo == hi:
			parts[i] = fmt.Sprintf("line %d", lo)
		default:
			parts[i] = fmt.Sprintf("lines %d-%d", lo, hi)
		}
	}
	return strings.Join(parts, ", ")
}

func near(h heal.Hunk, reports []contract.BugReport) bool {
	lo, hi := h.OldStart, h.OldStart+max(len(h.Old), 1)-1
	for _, r := range reports {
		if lo >= r.LineNumber-heal.GateWindow && hi <= r.LineNumber+heal.GateWindow {
			return true
		}
	}
	return false
}

// applyHunks applies hunks (in order, original coordinates) to content.
func applyHunks(content string, hunks []heal.Hunk) string {
	src := splitContent(content)
	out := lines{trailing: src.trailing}
	next := 1
	for _, h := range hunks {
		out.l = append(out.l, src.l[next-1:h.OldStart-1]...)
		out.l = append(out.l, h.New...)
		next = h.OldStart + len(h.Old)
	}
	out.l = append(out.l, src.l[next-1:]...)
	return out.String()
}

// misspelledUse reports whether another report says a name close to name
// is undefined: then name is unused only because its use is misspelled,
// and the suggest tier renames the use instead.
func misspelledUse(name string, reports []contract.BugReport) bool {
	for _, r := range reports {
		m := reUndefined.FindStringSubmatch(r.Message)
		if m != nil && m[1] != name && closeNames(name, m[1]) {
			return true
		}
	}
	return false
}

// closeNames reports whether a and b are at most 2 edits apart (1 for
// short names): insertions, deletions, substitutions, adjacent swaps.
func closeNames(a, b string) bool {
	limit := 1
	if len(a) > 4 {
		limit = 2
	}
	if d := len(a) - len(b); d > limit || d < -limit {
		return false
	}
	if len(a) > 64 || len(b) > 64 {
		return false // textdist compares names no longer than that
	}
	return textdist.Distance(a, b) <= limit
}

package rules

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
)

// reUndefinedAll finds every "undefined: x" of a message, one per line:
// a report may carry the other errors of its line in its message.
var reUndefinedAll = lazyre.New(`(?m)undefined: ([A-Za-z_]\w*)\s*$`)

// goMissingNames returns the package names the group's reports show
// undefined, in order: every "undefined: x" of every message, then the
// names used as x.Sel on a reported line that nothing declares (the
// compiler's other errors of that line, when the report kept only one).
// The names read from the file come with the selectors used on them, so
// that a caller can hold them to a stricter test.
func goMissingNames(in ruleInput) (said []string, seen map[string][]string) {
	have := map[string]bool{}
	lines := map[int]bool{}
	for _, r := range in.reports {
		for _, m := range reUndefinedAll.FindAllStringSubmatch(r.Message, -1) {
			lines[r.LineNumber] = true
			if !have[m[1]] {
				have[m[1]] = true
				said = append(said, m[1])
			}
		}
	}
	if len(lines) == 0 {
		return said, nil
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, in.path, in.content, parser.SkipObjectResolution)
	if err != nil {
		return said, nil
	}
	for _, is := range file.Imports {
		if is.Name != nil && is.Name.Name == "." {
			return said, nil // a dot import may declare anything
		}
	}
	declared := goDeclaredNames(file)
	for n := range importedNames(file) {
		declared[n] = true
	}
	var pkg map[string]bool
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || have[id.Name] || declared[id.Name] || goUniverse[id.Name] || !lines[fset.Position(id.Pos()).Line] || !ast.IsExported(sel.Sel.Name) {
			return true
		}
		if pkg == nil {
			pkg = goPackageNames(in.workspace, in.path, file.Name.Name)
		}
		if !pkg[id.Name] {
			if seen == nil {
				seen = map[string][]string{}
			}
			seen[id.Name] = append(seen[id.Name], sel.Sel.Name)
		}
		return true
	})
	return said, seen
}

// goDeclaredNames returns every name the file declares anywhere: its
// top-level declarations, and every parameter, result, variable, constant,
// type and label of its bodies. A name declared in any scope is not taken
// for a package, wherever it is used.
func goDeclaredNames(file *ast.File) map[string]bool {
	names := map[string]bool{}
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil {
				names[id.Name] = true
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			if x.Recv == nil {
				add(x.Name)
			}
		case *ast.Field:
			add(x.Names...)
		case *ast.ValueSpec:
			add(x.Names...)
		case *ast.TypeSpec:
			add(x.Name)
		case *ast.LabeledStmt:
			add(x.Label)
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, e := range x.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		}
		return true
	})
	return names
}

// goPackageNames returns the top-level names the other files of file's
// package (same folder, same package clause) declare.
func goPackageNames(ws, file, pkg string) map[string]bool {
	return goTopLevel(filepath.Join(ws, filepath.FromSlash(path.Dir(file))), path.Base(file), pkg)
}

// goTopLevel returns the top-level names the Go files of dir declare
// (but skip, and the test files), in package pkg, or in any package but
// a test package when pkg is "". At most 200 files are read.
func goTopLevel(dir, skip, pkg string) map[string]bool {
	names := map[string]bool{}
	es, err := os.ReadDir(dir)
	if err != nil {
		return names
	}
	n := 0
	for _, e := range es {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == skip || n >= 200 {
			continue
		}
		n++
		b, err := safefile.ReadOpts(filepath.Join(dir, name), safefile.MaxSource, safefile.Options{NoFollow: true})
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, b, parser.SkipObjectResolution)
		if err != nil || (pkg != "" && f.Name.Name != pkg) || strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		for _, d := range f.Decls {
			addTopLevel(names, d)
		}
	}
	return names
}

func addTopLevel(names map[string]bool, d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names[d.Name.Name] = true
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				for _, id := range s.Names {
					names[id.Name] = true
				}
			case *ast.TypeSpec:
				names[s.Name.Name] = true
			}
		}
	}
}

// addGoImports adds the import paths to content as goimports places them:
// a standard library path into a group of standard library imports, any
// other path into the group it shares the longest prefix with, and into a
// group of its own (standard library first, the rest after) when there is
// none; gofmt then sorts each group. Only the file's header (its package
// clause and import declarations) is edited and formatted, so a syntax
// error further down does not stop the edit and nothing else moves. It
// returns content unchanged when the header cannot be parsed.
func addGoImports(content string, paths []string) (string, bool) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", content, parser.ImportsOnly|parser.ParseComments)
	if err != nil || len(paths) == 0 {
		return content, false
	}
	end := fset.Position(file.Name.End()).Line
	if n := len(file.Decls); n > 0 {
		end = fset.Position(file.Decls[n-1].End()).Line
	}
	ls := splitContent(content)
	if end > len(ls.l) {
		return content, false
	}
	header := strings.Join(ls.l[:end], "\n") + "\n"
	for _, p := range paths {
		var ok bool
		if header, ok = addGoImport(header, p, len(paths), 0); !ok {
			return content, false
		}
	}
	out, err := format.Source([]byte(header))
	if err != nil {
		return content, false
	}
	rest := lines{l: ls.l[end:], trailing: ls.trailing}
	return string(out) + rest.String(), true
}

// goGroup is a run of import specs of one parenthesised declaration, as
// gofmt sees it: consecutive lines, a blank line ends it.
type goGroup struct {
	first, last int // header lines of its first and last spec
	std, other  bool
	paths       []string
}

// addGoImport adds one import path to a header (a package clause and
// import declarations only); total is how many are being added, so that
// a file without imports gets a parenthesised block when it needs one;
// depth counts the blocks it made, so that a header the parser reads
// otherwise than expected cannot make it loop.
func addGoImport(header, p string, total, depth int) (string, bool) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", header, parser.ImportsOnly|parser.ParseComments)
	if err != nil || depth > 1 {
		return header, false
	}
	line := func(pos token.Pos) int { return fset.Position(pos).Line }
	ls := splitContent(header)
	spec := "\t" + strconv.Quote(p)
	var decl *ast.GenDecl // the first parenthesised declaration, not import "C"
	var single *ast.GenDecl
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT || declImports(gd, "C") {
			continue
		}
		if gd.Lparen.IsValid() && decl == nil {
			decl = gd
		}
		if !gd.Lparen.IsValid() && single == nil {
			single = gd
		}
	}
	switch {
	case decl == nil && single != nil:
		// import "fmt" becomes a block, as goimports makes it.
		from, to := line(single.Pos()), line(single.End())
		if line(single.Specs[0].Pos()) != from || to != from {
			return header, false
		}
		text := strings.TrimSpace(ls.l[from-1])
		text = strings.TrimSpace(strings.TrimPrefix(text, "import"))
		ls.l[from-1] = "import ("
		ls.insertAfter(from, ")")
		ls.insertAfter(from, "\t"+text)
		return addGoImport(ls.String(), p, total, depth+1)
	case decl == nil && total == 1:
		ls.insertAfter(goPackageLine(fset, file), "import "+strconv.Quote(p))
		ls.insertAfter(goPackageLine(fset, file), "")
		return ls.String(), true
	case decl == nil:
		at := goPackageLine(fset, file)
		ls.insertAfter(at, ")")
		ls.insertAfter(at, "import (")
		ls.insertAfter(at, "")
		return addGoImport(ls.String(), p, total, depth+1)
	}
	groups := goGroups(fset, decl)
	std := isStdPath(p)
	best, bestLen := -1, -1
	for i, g := range groups {
		if (std && g.other && !g.std) || (!std && g.std && !g.other) {
			continue
		}
		for _, q := range g.paths {
			if n := matchLen(p, q); n > bestLen {
				best, bestLen = i, n
			}
		}
	}
	switch {
	case best >= 0:
		ls.insertAfter(groups[best].last, spec)
	case len(groups) == 0:
		ls.insertAfter(line(decl.Lparen), spec)
	case std:
		ls.insertAfter(groups[0].first-1, "")
		ls.insertAfter(groups[0].first-1, spec)
	default:
		last := groups[len(groups)-1].last
		ls.insertAfter(last, spec)
		ls.insertAfter(last, "")
	}
	return ls.String(), true
}

// goPackageLine is the line after which a first import declaration goes:
// the package clause's, or that of a comment that ends on its line.
func goPackageLine(fset *token.FileSet, file *ast.File) int {
	at := fset.Position(file.Name.End()).Line
	for _, c := range file.Comments {
		if l := fset.Position(c.Pos()).Line; l == at {
			at = fset.Position(c.End()).Line
		}
	}
	return at
}

// goGroups splits a parenthesised import declaration into gofmt's runs.
func goGroups(fset *token.FileSet, decl *ast.GenDecl) []goGroup {
	var out []goGroup
	prev := -1
	for _, s := range decl.Specs {
		is := s.(*ast.ImportSpec)
		from := fset.Position(is.Pos()).Line
		if is.Doc != nil {
			from = fset.Position(is.Doc.Pos()).Line
		}
		to := fset.Position(is.End()).Line
		if is.Comment != nil {
			to = fset.Position(is.Comment.End()).Line
		}
		if prev < 0 || from > prev+1 {
			out = append(out, goGroup{first: from})
		}
		g := &out[len(out)-1]
		g.last = to
		p := importPath(is)
		g.paths = append(g.paths, p)
		if isStdPath(p) {
			g.std = true
		} else {
			g.other = true
		}
		prev = to
	}
	return out
}

// isStdPath reports whether an import path is the standard library's: no
// dot in its first element, as goimports decides.
func isStdPath(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// matchLen is the number of path elements p and q share, counted as
// goimports does (the number of '/' in their common prefix), plus one
// when they share any prefix at all.
func matchLen(p, q string) int {
	n := 0
	for i := 0; i < len(p) && i < len(q) && p[i] == q[i]; i++ {
		if p[i] == '/' {
			n++
		}
		if i == 0 {
			n++
		}
	}
	return n
}

func declImports(gd *ast.GenDecl, p string) bool {
	for _, s := range gd.Specs {
		if is, ok := s.(*ast.ImportSpec); ok && importPath(is) == p {
			return true
		}
	}
	return false
}

// goUniverse holds Go's predeclared names.
var goUniverse = setOf(strings.Fields(`any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil append cap clear close complex copy delete imag len make max min new panic print println real recover`))

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// resolveGoNames resolves the missing names to import paths. Names the
// messages gave must be used as a package somewhere in the file (x.Sel);
// names read from the file only must also be exported by the package
// found (Sel of x.Sel), so that a local slip is not taken for a package.
func resolveGoNames(in ruleInput, have map[string]bool) ([]string, float64) {
	said, seen := goMissingNames(in)
	conf := 0.95
	var paths []string
	add := func(name string, sels []string) {
		if have[name] {
			return
		}
		p, c, ok := resolvePackage(in.workspace, in.path, name)
		if !ok {
			return
		}
		if sels == nil && !goUsedAsPackage(in.content, name) || sels != nil && !exportsAny(packageDir(in.workspace, in.path, p), sels) {
			return
		}
		have[name] = true
		paths = append(paths, p)
		conf = min(conf, c)
	}
	for _, n := range said {
		add(n, nil)
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add(n, seen[n])
	}
	sort.Strings(paths)
	return paths, conf
}

// exportsAny reports whether the package in dir declares one of names at
// its top level.
func exportsAny(dir string, names []string) bool {
	if dir == "" {
		return false
	}
	decl := goTopLevel(dir, "", "")
	for _, n := range names {
		if decl[n] {
			return true
		}
	}
	return false
}

// reGoSelectorUse finds x.Sel uses in a file that does not parse.
var reGoSelectorUse = lazyre.New(`(?:^|[^\w.])([A-Za-z_]\w*)\.[A-Za-z_]`)

// goUsedAsPackage reports whether content uses name as a package
// anywhere: as the x of an x.Sel (a package name can be used no other
// way). A file that does not parse is read line by line, its comments
// and strings aside.
func goUsedAsPackage(content, name string) bool {
	file, err := parser.ParseFile(token.NewFileSet(), "", content, parser.SkipObjectResolution)
	if err != nil {
		for _, l := range strings.Split(content, "\n") {
			for _, m := range reGoSelectorUse.FindAllStringSubmatch(goLineCode(l), -1) {
				if m[1] == name {
					return true
				}
			}
		}
		return false
	}
	used := false
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
				used = true
			}
		}
		return !used
	})
	return used
}

// goLexer is the language table's row for Go.
var goLexer = lang.ByName("go")

// goLineCode blanks the insides of a line's string literals and drops its
// // comment.
func goLineCode(l string) string {
	code, _ := goLexer.SplitLine(l)
	return goLexer.Hollow(code)
}

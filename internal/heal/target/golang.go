package target

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"path"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/salve-dev/salve/internal/heal/undertest"
)

// Bounds on the Go sources one resolution loads.
const (
	maxGoFiles    = 500 // per package folder
	maxGoImported = 16  // same-module packages type-checked from source
	maxGoBytes    = 64 << 20
)

// goDecl is a function or method declared in a file the loader parsed.
type goDecl struct {
	rel        string
	start, end int
	symbol     string
	test       bool          // declared in a test file
	decl       *ast.FuncDecl // kept with its body for test files only
}

// goLoader parses and type-checks the Go packages of one resolution. It
// indexes every function declaration by the position of its name, which
// is what a types.Func reports, so a use resolves to its lines at once.
type goLoader struct {
	w       *workspace
	fset    *token.FileSet
	decls   map[token.Pos]goDecl
	pkgs    map[string]*types.Package // by import path
	modPath string                    // the module path of go.mod, "" if none
	modRoot string                    // repo-relative folder of go.mod
	bytes   int
	srcOK   map[string]bool // import paths the test files import: loaded from source
	loaded  int
	// bodies keeps the bodies of non-test files (goReached reads them).
	bodies bool
}

func newGoLoader(w *workspace) *goLoader {
	return &goLoader{w: w, fset: token.NewFileSet(), decls: map[token.Pos]goDecl{}, pkgs: map[string]*types.Package{}, srcOK: map[string]bool{}}
}

// goFile is one parsed file of a package folder.
type goFile struct {
	rel  string
	ast  *ast.File
	test bool
}

// parseDir parses the buildable .go files of a repo-relative folder and
// indexes their declarations. The bodies of non-test files are blanked
// before parsing (unless g.bodies): only declarations matter there, and
// the parser and the type checker are spared them.
func (g *goLoader) parseDir(dir string, withTests bool) []goFile {
	real, ok := g.w.dir(dir)
	if !ok {
		return nil
	}
	ents, err := os.ReadDir(g.w.abs(real))
	if err != nil {
		return nil
	}
	var out []goFile
	for _, e := range ents {
		name := e.Name()
		test := strings.HasSuffix(name, "_test.go")
		if g.w.ctx != nil && g.w.ctx.Err() != nil {
			break
		}
		if !strings.HasSuffix(name, ".go") || (test && !withTests) || len(out) >= maxGoFiles {
			continue
		}
		rel, ok := g.w.file(path.Join(real, name))
		if !ok {
			continue
		}
		if f, ok := g.parseFile(rel, name, test); ok {
			out = append(out, f)
		}
	}
	return out
}

func (g *goLoader) parseFile(rel, name string, test bool) (goFile, bool) {
	src, err := g.w.read(rel)
	if err != nil || g.bytes+len(src) > maxGoBytes || !buildable(name, src) {
		return goFile{}, false
	}
	g.bytes += len(src)
	if !test && !g.bodies {
		src = purgeBodies(src)
	}
	f, err := parser.ParseFile(g.fset, rel, src, parser.SkipObjectResolution)
	if f == nil {
		return goFile{}, false
	}
	_ = err // a file with syntax errors still yields its good declarations
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name == nil {
			continue
		}
		gd := goDecl{rel: rel, start: g.line(fd.Pos()), end: g.line(fd.End()), symbol: goSymbol(f.Name.Name, fd), test: test}
		if test {
			gd.decl = fd
		}
		g.decls[fd.Name.Pos()] = gd
	}
	return goFile{rel: rel, ast: f, test: test}, true
}

func (g *goLoader) line(p token.Pos) int { return g.fset.Position(p).Line }

// buildable reports whether a file is part of the package on this machine
// (build constraints and file name suffixes), reading only src.
func buildable(name string, src []byte) bool {
	ctxt := build.Default
	ctxt.CgoEnabled = true
	ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
	ok, err := ctxt.MatchFile(".", name)
	return err == nil && ok
}

// readModule finds the go.mod at or above dir and records its module path.
func (g *goLoader) readModule(dir string) {
	for d := dir; ; d = path.Dir(d) {
		if rel, ok := g.w.file(path.Join(d, "go.mod")); ok {
			if data, err := g.w.read(rel); err == nil {
				g.modPath, g.modRoot = modfile.ModulePath(data), path.Dir(rel)
			}
			return
		}
		if d == "." || d == "/" || d == "" {
			return
		}
	}
}

// importPath is the import path of a repo-relative folder of the module.
func (g *goLoader) importPath(dir string) string {
	rel, ok := dir, g.modPath != ""
	switch {
	case !ok:
	case g.modRoot == ".":
	case dir == g.modRoot:
		rel = "."
	default:
		rel, ok = strings.CutPrefix(dir, g.modRoot+"/")
	}
	switch {
	case !ok:
		return "_/" + dir
	case rel == ".":
		return g.modPath
	default:
		return g.modPath + "/" + rel
	}
}

// load imports a package for the type checker. The module's own packages
// that the test files import are type-checked from source (declarations only);
// every other import, the standard library included, is an empty package:
// the checker reports what it then cannot resolve, and the loader ignores
// those errors, for it needs only the uses of the module's own functions.
func (g *goLoader) load(p string) (*types.Package, error) {
	if p == "unsafe" {
		return types.Unsafe, nil
	}
	if pkg, ok := g.pkgs[p]; ok {
		return pkg, nil
	}
	if g.srcOK[p] && g.loaded < maxGoImported && g.modPath != "" && (p == g.modPath || strings.HasPrefix(p, g.modPath+"/")) {
		g.loaded++
		dir := path.Join(g.modRoot, strings.TrimPrefix(strings.TrimPrefix(p, g.modPath), "/"))
		var files []*ast.File
		for _, f := range g.parseDir(dir, false) {
			files = append(files, f.ast)
		}
		if len(files) > 0 {
			g.pkgs[p] = nil // a cycle gets the empty package below
			pkg := g.check(p, files, &types.Info{Uses: map[*ast.Ident]types.Object{}}, true)
			g.pkgs[p] = pkg
			return pkg, nil
		}
	}
	pkg := types.NewPackage(p, guessName(p))
	pkg.MarkComplete()
	g.pkgs[p] = pkg
	return pkg, nil
}

// check type-checks one package into info, ignoring every error.
func (g *goLoader) check(p string, files []*ast.File, info *types.Info, declsOnly bool) *types.Package {
	conf := types.Config{Importer: importerFunc(g.importNoNil), Error: func(error) {}, IgnoreFuncBodies: declsOnly, FakeImportC: true}
	pkg, _ := conf.Check(p, g.fset, files, info)
	return pkg
}

// importNoNil is load with a package that is still being checked (an
// import cycle) answered by an empty one.
func (g *goLoader) importNoNil(p string) (*types.Package, error) {
	if pkg, ok := g.pkgs[p]; ok && pkg == nil {
		pkg = types.NewPackage(p, guessName(p))
		pkg.MarkComplete()
		return pkg, nil
	}
	return g.load(p)
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(p string) (*types.Package, error) { return f(p) }

// guessName guesses a package's name from its import path (the last
// element, without a major version or a go- prefix).
func guessName(p string) string {
	elems := strings.Split(p, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	name = strings.TrimPrefix(strings.TrimSuffix(strings.TrimSuffix(name, ".go"), "-go"), "go-")
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i]
	}
	return name
}

// goSymbol names a declaration: pkg.Func, pkg.(*T).Method or pkg.T.Method.
func goSymbol(pkg string, fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return pkg + "." + fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		t, star = s.X, true
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	recv := "?"
	if id, ok := t.(*ast.Ident); ok {
		recv = id.Name
	}
	if star {
		return pkg + ".(*" + recv + ")." + fd.Name.Name
	}
	return pkg + "." + recv + "." + fd.Name.Name
}

// goCalls resolves the functions the failing Go test uses: its test
// function (the one around the report's line, and the one its name
// gives), the functions it calls or refers to, and those its helpers in
// the package's test files call, one level deep.
func (r *resolver) goCalls() []cand {
	testRel, ok := r.w.file(r.bug.FilePath)
	if !ok || !strings.HasSuffix(testRel, "_test.go") {
		return nil
	}
	dir := path.Dir(testRel)
	g := newGoLoader(r.w)
	g.readModule(dir)
	files := g.parseDir(dir, true)
	var internal, external []*ast.File
	var testFile *ast.File
	for _, f := range files {
		if f.rel == testRel {
			testFile = f.ast
		}
		if f.test {
			for _, im := range f.ast.Imports {
				g.srcOK[strings.Trim(im.Path.Value, "\"`")] = true
			}
		}
		if strings.HasSuffix(f.ast.Name.Name, "_test") && f.test {
			external = append(external, f.ast)
		} else {
			internal = append(internal, f.ast)
		}
	}
	if testFile == nil {
		return nil
	}
	roots := goRoots(g, testFile, r.bug.LineNumber, r.testNames())
	skipUnreadBodies(files, roots)
	self := g.importPath(dir)
	delete(g.srcOK, self)
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	if pkg := g.check(self, internal, info, false); pkg != nil {
		g.pkgs[self] = pkg
	}
	if len(external) > 0 {
		g.check(self+"_test", external, info, false)
	}
	var out []cand
	for _, root := range roots {
		g.uses(info, root, 0, 0, func(d goDecl, line int, via string) {
			why := "called by " + root.Name.Name
			if via != "" {
				why += " through " + via
			}
			out = append(out, cand{Region: undertest.Region{Path: d.rel, Start: d.start, End: d.end, Symbol: d.symbol, Why: why}, name: lastSym(d.symbol), line: line})
		})
	}
	return out
}

// skipUnreadBodies drops, before the type check, the body of every
// function of the test files that uses never reads: uses walks the roots,
// and the test files' functions a root refers to, one level deep. A
// function a root's body does not name (as a call, a method or a value) is
// never reached, and type-checking the bodies of a package's other tests
// is most of a resolution's time where the test files are large.
func skipUnreadBodies(files []goFile, roots []*ast.FuncDecl) {
	named := map[string]bool{}
	keep := map[*ast.FuncDecl]bool{}
	for _, root := range roots {
		keep[root] = true
		ast.Inspect(root.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				named[id.Name] = true
			}
			return true
		})
	}
	for _, f := range files {
		if !f.test {
			continue
		}
		for _, d := range f.ast.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && !keep[fd] && !named[fd.Name.Name] {
				fd.Body = nil
			}
		}
	}
}

// goRoots finds the test functions to start from: the one around the
// report's line, then those the test name gives (a subtest's parent, a
// suite's method).
func goRoots(g *goLoader, f *ast.File, line int, names []string) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	seen := map[*ast.FuncDecl]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && g.line(fd.Pos()) <= line && line <= g.line(fd.End()) {
			out, seen[fd] = append(out, fd), true
		}
	}
	for _, n := range names {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Name.Name == n && !seen[fd] {
				out, seen[fd] = append(out, fd), true
			}
		}
	}
	return out
}

// uses walks fn's body and reports each use of a function declared in a
// non-test file, following functions of the package's test files one level.
func (g *goLoader) uses(info *types.Info, fn *ast.FuncDecl, depth, site int, visit func(goDecl, int, string)) {
	if fn.Body == nil {
		return
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		f, ok := info.Uses[id].(*types.Func)
		if !ok {
			return true
		}
		d, ok := g.decls[f.Origin().Pos()]
		if !ok {
			return true
		}
		line := g.line(id.Pos())
		if depth > 0 {
			line = site
		}
		switch {
		case !d.test:
			via := ""
			if depth > 0 {
				via = fn.Name.Name
			}
			visit(d, line, via)
		case depth == 0 && d.decl != nil && d.decl != fn:
			g.uses(info, d.decl, 1, line, visit)
		}
		return true
	})
}

// encloseGoFile finds the function declaration around line in one Go
// file, parsed alone; a line in a package-level var block gets that block.
func encloseGoFile(_ *resolver, rel string, src []byte, line int, _ string) (span, bool, string) {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if f == nil {
		return span{}, false, ""
	}
	for _, d := range f.Decls {
		start, end := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
		if line < start || line > end {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			return span{start: start, end: end, name: goSymbol(f.Name.Name, d)}, true, ""
		case *ast.GenDecl:
			return span{start: start, end: end, name: genDeclName(f.Name.Name, d)}, true, ""
		}
	}
	return span{}, false, ""
}

func genDeclName(pkg string, d *ast.GenDecl) string {
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.ValueSpec:
			if len(s.Names) > 0 {
				return pkg + "." + s.Names[0].Name
			}
		case *ast.TypeSpec:
			return pkg + "." + s.Name.Name
		}
	}
	return ""
}

// lastSym is the bare name of a Go symbol: "calc.(*Stack).Push" -> "Push".
func lastSym(sym string) string { _, n, _ := cutLastDot(sym); return n }

// purgeBodies blanks the inside of every top-level {…} of a Go source that
// is not a struct or interface type (function bodies, and the values of
// composite literals), keeping line breaks, so that positions hold.
func purgeBodies(src []byte) []byte {
	out := bytes.Clone(src)
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var sc scanner.Scanner
	sc.Init(file, src, nil, 0)
	var prev token.Token
	var braces []int // offsets of unclosed braces, -1 for a type's
	for {
		pos, tok, _ := sc.Scan()
		if tok == token.EOF {
			return out
		}
		switch tok {
		case token.LBRACE:
			off := file.Offset(pos)
			if prev == token.STRUCT || prev == token.INTERFACE {
				off = -1
			}
			braces = append(braces, off)
		case token.RBRACE:
			n := len(braces)
			if n == 0 {
				break
			}
			if open := braces[n-1]; open >= 0 && n == 1 {
				blankRange(out, open+1, file.Offset(pos))
			}
			braces = braces[:n-1]
		}
		prev = tok
	}
}

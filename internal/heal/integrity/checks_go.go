package integrity

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"
)

// goChecksKept reports whether a fix of a Go test file provably leaves
// every check as it was, read with go/ast: the same test functions with
// the same signatures, the same declarations outside functions (tables of
// cases, expected values), and in every function the same statements in
// the same order, once dead ones are set aside in both versions. A dead
// statement declares or assigns only names nothing in its function reads,
// from values without calls (what the compiler calls "declared and not
// used"), or is `_ = x`. A statement on a line a report names may differ
// only in the arguments of calls that are not checks (a call the compiler
// says has too few arguments, a print go vet flags): never a check call
// (t.Error…, t.Fatal…, t.Skip…, t.Run, assert.…, require.…), nor its
// condition. Imports may change; comments may not (an example's
// "// Output:" is a check, //go:build a directive). Anything else, or a
// file that does not parse, is no proof.
func goChecksKept(orig, patched string, reported map[int]bool) bool {
	fset := token.NewFileSet()
	a, err := parser.ParseFile(fset, "a.go", orig, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return false
	}
	fsetB := token.NewFileSet()
	b, err := parser.ParseFile(fsetB, "b.go", patched, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil || a.Name.Name != b.Name.Name {
		return false
	}
	// Comments can be checks (an example's "// Output:") or directives
	// (//go:build): they stay as they were, in order.
	if len(a.Comments) != len(b.Comments) {
		return false
	}
	for i := range a.Comments {
		if a.Comments[i].Text() != b.Comments[i].Text() || len(a.Comments[i].List) != len(b.Comments[i].List) {
			return false
		}
		for j := range a.Comments[i].List {
			if a.Comments[i].List[j].Text != b.Comments[i].List[j].Text {
				return false
			}
		}
	}
	// A blank or dot import runs code of its own (a test hook, a driver):
	// those stay; the others may change with the code.
	if sideImports(a) != sideImports(b) {
		return false
	}
	da, db := topDecls(a), topDecls(b)
	if len(da) != len(db) {
		return false
	}
	for i := range da {
		x, y := da[i], db[i]
		fx, okx := x.(*ast.FuncDecl)
		fy, oky := y.(*ast.FuncDecl)
		switch {
		case okx != oky:
			return false
		case !okx:
			if show(fset, x) != show(fsetB, y) {
				return false
			}
		default:
			if fx.Name.Name != fy.Name.Name || show(fset, fx.Type) != show(fsetB, fy.Type) || show(fset, fx.Recv) != show(fsetB, fy.Recv) {
				return false
			}
			if (fx.Body == nil) != (fy.Body == nil) {
				return false
			}
			if fx.Body != nil && !sameBlock(&cmpCtx{fa: fset, fb: fsetB, funA: fx, funB: fy, reported: reported}, fx.Body.List, fy.Body.List) {
				return false
			}
		}
	}
	return true
}

// sideImports lists a file's blank and dot imports.
func sideImports(f *ast.File) string {
	var out []string
	for _, im := range f.Imports {
		if im.Name != nil && (im.Name.Name == "_" || im.Name.Name == ".") {
			out = append(out, im.Name.Name+" "+im.Path.Value)
		}
	}
	return strings.Join(out, "\n")
}

// topDecls are a file's declarations, imports left out.
func topDecls(f *ast.File) []ast.Decl {
	var out []ast.Decl
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		out = append(out, d)
	}
	return out
}

// cmpCtx is one function compared in its two versions.
type cmpCtx struct {
	fa, fb     *token.FileSet
	funA, funB *ast.FuncDecl
	reported   map[int]bool
}

// sameBlock compares two statement lists, dead statements set aside.
func sameBlock(c *cmpCtx, xs, ys []ast.Stmt) bool {
	xs, ys = live(xs, c.funA), live(ys, c.funB)
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		if !sameStmt(c, xs[i], ys[i]) {
			return false
		}
	}
	return true
}

// sameStmt compares two statements: equal when printed alike; a statement
// holding a block is compared head then body; a statement on a reported
// line may differ in the arguments of calls that are not checks.
func sameStmt(c *cmpCtx, x, y ast.Stmt) bool {
	if show(c.fa, x) == show(c.fb, y) {
		return true
	}
	switch x := x.(type) {
	case *ast.BlockStmt:
		y, ok := y.(*ast.BlockStmt)
		return ok && sameBlock(c, x.List, y.List)
	case *ast.IfStmt:
		y, ok := y.(*ast.IfStmt)
		if !ok || show(c.fa, x.Init) != show(c.fb, y.Init) || show(c.fa, x.Cond) != show(c.fb, y.Cond) || (x.Else == nil) != (y.Else == nil) {
			return false
		}
		return sameBlock(c, x.Body.List, y.Body.List) && (x.Else == nil || sameStmt(c, x.Else, y.Else))
	case *ast.ForStmt:
		y, ok := y.(*ast.ForStmt)
		return ok && show(c.fa, x.Init) == show(c.fb, y.Init) && show(c.fa, x.Cond) == show(c.fb, y.Cond) &&
			show(c.fa, x.Post) == show(c.fb, y.Post) && sameBlock(c, x.Body.List, y.Body.List)
	case *ast.RangeStmt:
		y, ok := y.(*ast.RangeStmt)
		return ok && show(c.fa, x.Key) == show(c.fb, y.Key) && show(c.fa, x.Value) == show(c.fb, y.Value) &&
			show(c.fa, x.X) == show(c.fb, y.X) && sameBlock(c, x.Body.List, y.Body.List)
	}
	if silenced(c, x, c.funA) == silenced(c, y, c.funB) {
		return true // x, err := f() and _, err := f(); x := f() and f()
	}
	line := c.fa.Position(x.Pos()).Line
	end := c.fa.Position(x.End()).Line
	onReport := false
	for l := line; l <= end; l++ {
		onReport = onReport || c.reported[l]
	}
	if !onReport || hasCheck(x) || hasCheck(y) {
		return false
	}
	return show(c.fa, withoutArgs(x)) == show(c.fb, withoutArgs(y))
}

// silenced prints s with every name it assigns that fn never reads as
// "_", and a call whose results all go to "_" as the bare call: the forms
// the compiler's "declared and not used" leaves for a call's results.
func silenced(c *cmpCtx, s ast.Stmt, fn *ast.FuncDecl) string {
	fset := c.fa
	if fn == c.funB {
		fset = c.fb
	}
	if e, ok := s.(*ast.ExprStmt); ok {
		if _, ok := e.X.(*ast.CallExpr); ok {
			return show(fset, e.X)
		}
	}
	a, ok := s.(*ast.AssignStmt)
	if !ok || (a.Tok != token.DEFINE && a.Tok != token.ASSIGN) {
		return "\x00" + show(fset, s)
	}
	names := make([]string, len(a.Lhs))
	all := true
	for i, l := range a.Lhs {
		names[i] = show(fset, l)
		if id, ok := l.(*ast.Ident); ok && (id.Name == "_" || !readIn(fn, id.Name)) {
			names[i] = "_"
		}
		all = all && names[i] == "_"
	}
	rhs := make([]string, len(a.Rhs))
	for i, r := range a.Rhs {
		rhs[i] = show(fset, r)
	}
	if all && len(a.Rhs) == 1 {
		if _, ok := a.Rhs[0].(*ast.CallExpr); ok {
			return rhs[0]
		}
	}
	return strings.Join(names, ", ") + " = " + strings.Join(rhs, ", ")
}

// live drops the dead statements of a list (see goChecksKept).
func live(list []ast.Stmt, fn *ast.FuncDecl) []ast.Stmt {
	var out []ast.Stmt
	for _, s := range list {
		if !deadStmt(s, fn) {
			out = append(out, s)
		}
	}
	return out
}

// deadStmt reports whether s only declares or assigns names fn never
// reads, from values without calls, or is `_ = name`.
func deadStmt(s ast.Stmt, fn *ast.FuncDecl) bool {
	var names []*ast.Ident
	var values []ast.Expr
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok != token.DEFINE && s.Tok != token.ASSIGN {
			return false
		}
		for _, l := range s.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				return false
			}
			names = append(names, id)
		}
		values = s.Rhs
	case *ast.DeclStmt:
		g, ok := s.Decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			return false
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			names = append(names, vs.Names...)
			values = append(values, vs.Values...)
		}
	default:
		return false
	}
	for _, v := range values {
		if hasCall(v) {
			return false
		}
	}
	blank := true
	for _, n := range names {
		if n.Name != "_" {
			blank = false
			if readIn(fn, n.Name) {
				return false
			}
		}
	}
	// `_ = x` silences a name: dead too; `_ = f()` is not (hasCall).
	return !blank || len(values) > 0
}

// readIn reports whether fn reads name anywhere: an identifier of that
// name that is not the left side of an assignment or a declared name.
func readIn(fn *ast.FuncDecl, name string) bool {
	written := map[*ast.Ident]bool{}
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					written[id] = true
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				written[id] = true
			}
		}
		return true
	})
	read := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			ast.Inspect(sel.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && id.Name == name && !written[id] {
					read = true
				}
				return !read
			})
			return false // Sel is a field or method name, not a read
		}
		if id, ok := n.(*ast.Ident); ok && id.Name == name && !written[id] {
			read = true
		}
		return !read
	})
	return read
}

func hasCall(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if _, ok := n.(*ast.CallExpr); ok {
			found = true
		}
		return !found
	})
	return found
}

// checkMethods are the testing methods that check, skip or register.
var checkMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true,
	"Skip": true, "Skipf": true, "SkipNow": true, "Run": true}

// checkPackages are the assertion libraries whose every call checks.
var checkPackages = map[string]bool{"assert": true, "require": true, "is": true, "qt": true, "check": true, "gomega": true, "Expect": true}

// hasCheck reports whether n holds a call that checks.
func hasCheck(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		call, ok := m.(*ast.CallExpr)
		if !ok {
			return !found
		}
		switch fun := call.Fun.(type) {
		case *ast.SelectorExpr:
			if checkMethods[fun.Sel.Name] {
				found = true
			}
			if id, ok := fun.X.(*ast.Ident); ok && checkPackages[id.Name] {
				found = true
			}
		case *ast.Ident:
			if checkPackages[fun.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}

// withoutArgs drops the arguments of every call of s, in place: s is
// compared once, after its checks were looked for.
func withoutArgs(s ast.Stmt) ast.Node {
	ast.Inspect(s, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			call.Args, call.Ellipsis = nil, token.NoPos
		}
		return true
	})
	return s
}

// show prints a node as gofmt would, "" for nil.
func show(fset *token.FileSet, n any) string {
	if n == nil {
		return ""
	}
	switch v := n.(type) {
	case ast.Stmt:
		if v == nil {
			return ""
		}
	case ast.Expr:
		if v == nil {
			return ""
		}
	case *ast.FieldList:
		if v == nil {
			return ""
		}
	}
	var b strings.Builder
	if err := printer.Fprint(&b, fset, n); err != nil {
		return "\x00" + err.Error()
	}
	return b.String()
}

package target

import (
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/internal/lang"

	"github.com/salve-dev/salve/internal/heal/undertest"
)

// The functions reached through the code under test are bounded: nearest
// first, at most maxReached of them and maxReachedLines lines in all.
const (
	maxReached      = 24
	maxReachedLines = 800
)

// goFunc is one function or method of the package the code under test is
// in, with its body.
type goFunc struct {
	rel        string
	start, end int
	symbol     string
	decl       *ast.FuncDecl
	// imports are the names the function's file gives the packages it
	// imports: a selector on one of them leaves the package.
	imports map[string]bool
}

// goReached returns the functions of the package of the code under test
// that shown (the functions the failing test calls) call in turn, directly
// or through one another, nearest first: a test of Parse fails because of
// a slip in parseNote, three calls down. They widen the window (a fix may
// change them) and are marked Reached. The calls are read from the syntax
// alone: a call by name is every function of that name in the package, a
// method call every method of that name (never a package's selector), so
// the set can only be larger than the true one; and of that set only the
// functions nothing but the code under test calls are kept (privateTo).
func (r *resolver) goReached(shown []cand) []cand {
	if len(shown) == 0 || !strings.HasSuffix(shown[0].Path, ".go") {
		return nil
	}
	funcs, byName, methods, external := r.goPackageFuncs(path.Dir(shown[0].Path))
	at := map[string]*goFunc{}
	for _, f := range funcs {
		at[f.key()] = f
	}
	out := reach(shown, func(c cand) []cand {
		from := at[candKey(c)]
		if from == nil {
			return nil
		}
		var next []cand
		for _, f := range calledBy(from, byName, methods) {
			next = append(next, cand{Region: undertest.Region{Path: f.rel, Start: f.start, End: f.end, Symbol: f.symbol}, name: f.decl.Name.Name})
		}
		return next
	})
	callers := map[string][]string{}
	for _, f := range funcs {
		for _, g := range calledBy(f, byName, methods) {
			callers[g.key()] = append(callers[g.key()], f.key())
		}
	}
	return privateTo(shown, out, callers, external)
}

// key names f as candKey names its region.
func (f *goFunc) key() string { return f.rel + ":" + strconv.Itoa(f.start) }

// reach walks the calls from shown, nearest first, next giving the
// functions a region calls: at most maxReached functions and
// maxReachedLines lines, each marked Reached with its caller in its Why.
func reach(shown []cand, next func(cand) []cand) []cand {
	seen := map[string]bool{}
	for _, c := range shown {
		seen[candKey(c)] = true
	}
	queue := append([]cand(nil), shown...)
	var out []cand
	lines := 0
	for len(queue) > 0 && len(out) < maxReached {
		from := queue[0]
		queue = queue[1:]
		for _, c := range next(from) {
			k := candKey(c)
			if seen[k] || c.Start < 1 || c.End < c.Start {
				continue
			}
			seen[k] = true
			n := c.End - c.Start + 1
			if len(out) == maxReached || lines+n > maxReachedLines {
				continue
			}
			lines += n
			c.Reached = true
			c.Why = "called by " + from.Symbol + ", which the code under test reaches"
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// candKey names a region by its file and first line, as the callers maps
// of privateTo do.
func candKey(c cand) string { return c.Path + ":" + strconv.Itoa(c.Start) }

// privateTo keeps, of reached, the functions only the code under test
// calls: every caller each has in the scope its calls were read in
// (callers maps a function to its callers; external marks one that code
// outside every function calls, such as a package variable's initial
// value) is shown or kept. A helper that another function also calls is
// shared: a fix there changes that function too, which the gate refuses
// as outside the code under test (the red-team corpus's outside-function
// cheat). Leaving one out can leave out those only it calls.
func privateTo(shown, reached []cand, callers map[string][]string, external map[string]bool) []cand {
	in := map[string]bool{}
	for _, c := range shown {
		in[candKey(c)] = true
	}
	for _, c := range reached {
		in[candKey(c)] = true
	}
	for changed := true; changed; {
		changed = false
		for _, c := range reached {
			k := candKey(c)
			if !in[k] {
				continue
			}
			private := !external[k]
			for _, from := range callers[k] {
				if !in[from] {
					private = false
					break
				}
			}
			if !private {
				delete(in, k)
				changed = true
			}
		}
	}
	var out []cand
	for _, c := range reached {
		if in[candKey(c)] {
			out = append(out, c)
		}
	}
	return out
}

// calledBy returns the package's functions from's body calls or names, in
// the order of the body.
func calledBy(from *goFunc, byName, methods map[string][]*goFunc) []*goFunc {
	var out []*goFunc
	if from.decl.Body == nil {
		return nil
	}
	sel := map[*ast.Ident]bool{} // a method's name, not a function's
	ast.Inspect(from.decl.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && from.imports[id.Name] {
				return false // another package's
			}
			sel[x.Sel] = true
			out = append(out, methods[x.Sel.Name]...)
		case *ast.Ident:
			if !sel[x] {
				out = append(out, byName[x.Name]...)
			}
		}
		return true
	})
	return out
}

// goPackageFuncs parses, bodies and all, the non-test Go files of dir and
// returns their functions: all of them, the plain functions by name, the
// methods by name, and those a package-level declaration names.
func (r *resolver) goPackageFuncs(dir string) (funcs []*goFunc, byName, methods map[string][]*goFunc, external map[string]bool) {
	byName, methods, external = map[string][]*goFunc{}, map[string][]*goFunc{}, map[string]bool{}
	g := newGoLoader(r.w)
	g.bodies = true
	files := g.parseDir(dir, false)
	for _, f := range files {
		imports := map[string]bool{}
		for _, im := range f.ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			switch {
			case im.Name != nil:
				imports[im.Name.Name] = true
			case p != "":
				imports[guessName(p)] = true
			}
		}
		for _, d := range f.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name == nil || fd.Body == nil {
				continue
			}
			gf := &goFunc{rel: f.rel, start: g.line(fd.Pos()), end: g.line(fd.End()),
				symbol: goSymbol(f.ast.Name.Name, fd), decl: fd, imports: imports}
			funcs = append(funcs, gf)
			if fd.Recv != nil {
				methods[fd.Name.Name] = append(methods[fd.Name.Name], gf)
			} else {
				byName[fd.Name.Name] = append(byName[fd.Name.Name], gf)
			}
		}
	}
	// A function a package-level variable names (its initial value, a
	// table of handlers) is called from outside every function.
	for _, f := range files {
		for _, d := range f.ast.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				ast.Inspect(gd, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						for _, fn := range append(byName[id.Name], methods[id.Name]...) {
							external[fn.key()] = true
						}
					}
					return true
				})
			}
		}
	}
	return funcs, byName, methods, external
}

// lexReached is reached for a brace language read lexically: the
// functions of each region's own file that it calls (callees), then
// theirs, nearest first, within the same bounds as goReached, those other
// functions of the file also call left out (privateTo).
func lexReached(family *lang.Language) func(r *resolver, shown []cand) []cand {
	return func(r *resolver, shown []cand) []cand {
		out := reach(shown, func(c cand) []cand { return r.callees(c, family) })
		return privateTo(shown, out, r.lexCallers(out, family), nil)
	}
}

// lexCallers maps each function of the files of reached to the functions
// of its file that call it, read as callees reads calls.
func (r *resolver) lexCallers(reached []cand, family *lang.Language) map[string][]string {
	callers := map[string][]string{}
	done := map[string]bool{}
	for _, c := range reached {
		if done[c.Path] {
			continue
		}
		done[c.Path] = true
		src, ok := r.read(c.Path)
		if !ok {
			continue
		}
		code, defs := braceDefs(string(src), lexOf(c.Path, family))
		starts := lineStarts(code)
		byName := map[string][]braceDef{}
		for _, d := range defs {
			if !d.test && !d.nested {
				byName[d.name] = append(byName[d.name], d)
			}
		}
		for _, d := range defs {
			if d.test || d.nested {
				continue
			}
			from := c.Path + ":" + strconv.Itoa(d.start)
			for _, k := range readCalls(code, d.open, d.close, starts) {
				for _, callee := range byName[k.name] {
					to := c.Path + ":" + strconv.Itoa(callee.start)
					callers[to] = append(callers[to], from)
				}
			}
		}
	}
	return callers
}

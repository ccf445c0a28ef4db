// Package deadvar works out what removing an unused Go local variable
// takes: the variable the compiler reports as "declared and not used", its
// declaration, and every plain assignment to it in its function (dead,
// since nothing reads it), each rewritten so that no side effect is lost.
// A statement whose value has no call goes; `x := f()` becomes `f()`; in
// `x, err := f()` the name becomes `_`; a value whose calls cannot stand
// as a statement of their own (`x := f() + 1`) becomes `_ = f() + 1`.
//
// The rules tier applies the removal ([Apply]); the fix gate reads the
// lines it may change ([Spans]), since a dead assignment can sit anywhere
// in the function, far from the reported declaration. It reads the source
// with go/parser alone (no type checking), and declines whatever it cannot
// prove: a name it finds read, a statement sharing its line with another,
// a label on the statement.
package deadvar

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// reUnused reads the compiler's report of an unused variable: gc's
// "declared and not used: x" and go/types' (vet, gopls, older gc) "x
// declared and not used".
var reUnused = regexp.MustCompile(`declared and not used: ([A-Za-z_]\w*)|([A-Za-z_]\w*) declared (?:and|but) not used`)

// Name returns the variable a report says is declared and not used, or "".
func Name(message string) string {
	if m := reUnused.FindStringSubmatch(message); m != nil {
		return m[1] + m[2]
	}
	return ""
}

// Span is lines Start..End of the source, 1-based and inclusive.
type Span struct{ Start, End int }

// change replaces the source's bytes [off, end) with text.
type change struct {
	off, end int
	text     string
}

// Removal is what removing one unused variable takes.
type Removal struct {
	// Name is the variable.
	Name string
	// Decl is the line of its declaration; Assigns the lines of its dead
	// assignments.
	Decl    int
	Assigns []int
	// Kept are the values kept for their side effects, as they now stand
	// (`f()`, `_ = f() + 1`).
	Kept []string
	// Blanked says the name became `_` in a statement that declares or
	// assigns other names too.
	Blanked bool
	// Spans are the lines the removal changes.
	Spans   []Span
	changes []change
}

// Find returns the removal of the local variable name declared on line of
// the Go source src; ok is false when the source does not parse, no such
// declaration is there, the variable is read somewhere, or one of its
// statements cannot be rewritten safely.
func Find(src, name string, line int) (Removal, bool) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return Removal{}, false
	}
	f := &finder{fset: fset, file: file, src: src}
	return f.find(name, line)
}

// Spans returns, for each report of an unused Go variable in src, the lines
// its removal changes: the declaration and the dead assignments. A report
// whose removal cannot be worked out adds none.
func Spans(src string, reports []contract.BugReport) []Span {
	var out []Span
	for _, r := range reports {
		if n := Name(r.Message); n != "" {
			if rm, ok := Find(src, n, r.LineNumber); ok {
				out = append(out, rm.Spans...)
			}
		}
	}
	return out
}

// Apply returns src with the removals made; ok is false when two of them
// overlap (the same statement holds two unused names: apply one, then
// find the other again in the result).
func Apply(src string, rs []Removal) (string, bool) {
	var cs []change
	for _, r := range rs {
		cs = append(cs, r.changes...)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].off > cs[j].off })
	for i := 1; i < len(cs); i++ {
		if cs[i].end > cs[i-1].off {
			return src, false
		}
	}
	for _, c := range cs {
		src = src[:c.off] + c.text + src[c.end:]
	}
	return src, true
}

type finder struct {
	fset *token.FileSet
	file *ast.File
	src  string
}

func (f *finder) off(p token.Pos) int { return f.fset.Position(p).Offset }
func (f *finder) line(p token.Pos) int {
	return f.fset.Position(p).Line
}
func (f *finder) text(n ast.Node) string { return f.src[f.off(n.Pos()):f.off(n.End())] }

func (f *finder) find(name string, line int) (Removal, bool) {
	// the defining identifier on the reported line
	var def *ast.Ident
	ast.Inspect(f.file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && def == nil && id.Name == name && id.Obj != nil && id.Obj.Kind == ast.Var && f.line(id.Pos()) == line && defines(id) {
			def = id
		}
		return def == nil
	})
	if def == nil {
		return Removal{}, false
	}
	rm := Removal{Name: name, Decl: line}
	var refs []*ast.Ident
	ast.Inspect(f.file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id != def && id.Obj == def.Obj {
			refs = append(refs, id)
		}
		return true
	})
	// the declaration
	path := f.pathTo(def)
	if !f.rewrite(&rm, def, path, true) {
		return Removal{}, false
	}
	for _, ref := range refs {
		p := f.pathTo(ref)
		as, ok := p[1].(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || !inLhs(as, ref) {
			return Removal{}, false // read: not unused after all
		}
		if !f.rewrite(&rm, ref, p, false) {
			return Removal{}, false
		}
		rm.Assigns = append(rm.Assigns, f.line(ref.Pos()))
	}
	return rm, true
}

// defines reports whether id is where its object is declared.
func defines(id *ast.Ident) bool {
	switch d := id.Obj.Decl.(type) {
	case *ast.AssignStmt:
		return inLhs(d, id)
	case *ast.ValueSpec:
		for _, n := range d.Names {
			if n == id {
				return true
			}
		}
	}
	return false
}

func inLhs(as *ast.AssignStmt, id *ast.Ident) bool {
	for _, l := range as.Lhs {
		if l == id {
			return true
		}
	}
	return false
}

// pathTo returns the nodes from id up to the file: id, its parent, ...
func (f *finder) pathTo(id *ast.Ident) []ast.Node {
	var stack, found []ast.Node
	ast.Inspect(f.file, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		stack = append(stack, n)
		if n == id {
			found = make([]ast.Node, len(stack))
			for i := range stack {
				found[len(stack)-1-i] = stack[i]
			}
			return false
		}
		return true
	})
	return found
}

// rewrite records how the statement holding id (path[1]) changes so that
// id goes; decl says id is the declaration.
func (f *finder) rewrite(rm *Removal, id *ast.Ident, path []ast.Node, decl bool) bool {
	if len(path) < 3 {
		return false
	}
	switch s := path[1].(type) {
	case *ast.RangeStmt:
		if decl && s.Tok == token.DEFINE && (s.Key == id || s.Value == id) {
			return f.rangeVar(rm, s, id)
		}
	case *ast.AssignStmt:
		if ts, ok := path[2].(*ast.TypeSwitchStmt); ok && ts.Assign == s {
			// switch x := v.(type) → switch v.(type)
			rm.add(f, change{f.off(s.Pos()), f.off(s.End()), f.text(s.Rhs[0])})
			return true
		}
		return f.assign(rm, s, id, path)
	case *ast.ValueSpec:
		return f.valueSpec(rm, s, id, path)
	}
	return false
}

// assign rewrites `x := v`, `x = v`, `x, y := f()` and the like.
func (f *finder) assign(rm *Removal, s *ast.AssignStmt, id *ast.Ident, path []ast.Node) bool {
	if len(s.Lhs) == 1 {
		if len(s.Rhs) != 1 {
			return false
		}
		return f.replaceStmt(rm, s, s.Rhs[0], path)
	}
	// several names: the unused one becomes _
	others, fresh := false, false
	for _, l := range s.Lhs {
		if l == id {
			continue
		}
		if li, ok := l.(*ast.Ident); !ok || li.Name != "_" {
			others = true
			if ok && li.Obj != nil && li.Obj.Decl == s {
				fresh = true
			}
		}
	}
	if !others {
		if len(s.Rhs) != 1 {
			if pure(s) {
				return f.dropStmt(rm, s, path)
			}
			return false
		}
		return f.replaceStmt(rm, s, s.Rhs[0], path)
	}
	rm.Blanked = true
	rm.add(f, change{f.off(id.Pos()), f.off(id.End()), "_"})
	if s.Tok == token.DEFINE && !fresh {
		rm.add(f, change{f.off(s.TokPos), f.off(s.TokPos) + 2, "="}) // no new name is left to declare
	}
	return true
}

// valueSpec rewrites `var x T`, `var x = v`, `var x, y = f()`.
func (f *finder) valueSpec(rm *Removal, vs *ast.ValueSpec, id *ast.Ident, path []ast.Node) bool {
	gd, ok := path[2].(*ast.GenDecl)
	if !ok || len(path) < 4 {
		return false
	}
	if len(vs.Names) > 1 {
		if len(vs.Values) == 0 {
			// var a, x int → var a int
			i := indexOf(vs.Names, id)
			if i == 0 {
				rm.add(f, change{f.off(id.Pos()), f.off(vs.Names[1].Pos()), ""})
			} else {
				rm.add(f, change{f.off(vs.Names[i-1].End()), f.off(id.End()), ""})
			}
			return true
		}
		rm.Blanked = true
		rm.add(f, change{f.off(id.Pos()), f.off(id.End()), "_"})
		return true
	}
	if gd.Lparen.IsValid() {
		if len(gd.Specs) == 1 {
			return f.declStmt(rm, vs, path[3], path[3:])
		}
		if len(vs.Values) == 1 && !pure(vs.Values[0]) {
			return false
		}
		return f.dropLines(rm, vs)
	}
	return f.declStmt(rm, vs, path[3], path[3:])
}

// declStmt removes the statement `var x = v` (stmt) or keeps its value.
func (f *finder) declStmt(rm *Removal, vs *ast.ValueSpec, stmt ast.Node, path []ast.Node) bool {
	ds, ok := stmt.(*ast.DeclStmt)
	if !ok {
		return false
	}
	if len(vs.Values) == 0 {
		return f.dropStmt(rm, ds, path)
	}
	if len(vs.Values) != 1 {
		return false
	}
	return f.replaceStmt(rm, ds, vs.Values[0], path)
}

// replaceStmt replaces stmt, whose only value is v, by what of v must
// stay: nothing when v has no call, the call itself, or `_ = v`.
func (f *finder) replaceStmt(rm *Removal, stmt ast.Node, v ast.Expr, path []ast.Node) bool {
	if pure(v) {
		return f.dropStmt(rm, stmt, path)
	}
	text := f.text(v)
	switch x := ast.Unparen(v).(type) {
	case *ast.CallExpr:
		text = f.text(x)
	case *ast.UnaryExpr:
		if x.Op != token.ARROW {
			text = "_ = " + text
		}
	default:
		text = "_ = " + text
	}
	if _, ok := parentOf(stmt, path).(*ast.LabeledStmt); ok {
		return false
	}
	rm.Kept = append(rm.Kept, text)
	rm.add(f, change{f.off(stmt.Pos()), f.off(stmt.End()), text})
	return true
}

// dropStmt removes stmt: its lines, when it stands alone on them, or the
// init statement of an if, for or switch with its semicolon.
func (f *finder) dropStmt(rm *Removal, stmt ast.Node, path []ast.Node) bool {
	switch p := parentOf(stmt, path).(type) {
	case *ast.LabeledStmt:
		return false
	case *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.ForStmt:
		end := f.off(stmt.End())
		rest := f.src[end:]
		t := strings.TrimLeft(rest, " \t")
		if !strings.HasPrefix(t, ";") {
			return false
		}
		skip := len(rest) - len(t) + 1
		if _, isFor := p.(*ast.ForStmt); isFor {
			skip = len(rest) - len(t) // for ; cond; post keeps its semicolons
		} else {
			skip += len(t[1:]) - len(strings.TrimLeft(t[1:], " \t"))
		}
		rm.add(f, change{f.off(stmt.Pos()), end + skip, ""})
		return true
	}
	return f.dropLines(rm, stmt)
}

// dropLines removes the whole lines of n when nothing else (code or
// comment) shares them.
func (f *finder) dropLines(rm *Removal, n ast.Node) bool {
	start, end := f.off(n.Pos()), f.off(n.End())
	ls := strings.LastIndexByte(f.src[:start], '\n') + 1
	if strings.TrimLeft(f.src[ls:start], " \t") != "" {
		return false
	}
	le := strings.IndexByte(f.src[end:], '\n')
	if le < 0 {
		le = len(f.src) - end
	} else {
		le++
	}
	if strings.TrimSpace(f.src[end:end+le]) != "" {
		return false
	}
	rm.changes = append(rm.changes, change{ls, end + le, ""})
	rm.Spans = append(rm.Spans, Span{f.line(n.Pos()), f.line(n.End())})
	return true
}

// rangeVar drops an unused range variable: for k, v := range xs.
func (f *finder) rangeVar(rm *Removal, rs *ast.RangeStmt, id *ast.Ident) bool {
	key, _ := rs.Key.(*ast.Ident)
	val, _ := rs.Value.(*ast.Ident)
	blank := func(x *ast.Ident) bool { return x == nil || x == id || x.Name == "_" }
	var head string
	switch {
	case blank(key) && blank(val):
		head = "range "
	case blank(val):
		head = f.text(rs.Key) + " := range "
	default: // the key goes, the value stays
		head = "_, " + f.text(rs.Value) + " := range "
	}
	rm.add(f, change{f.off(rs.Key.Pos()), f.off(rs.X.Pos()), head})
	return true
}

// add records a change within one line range.
func (rm *Removal) add(f *finder, c change) {
	tf := f.fset.File(f.file.Pos())
	rm.changes = append(rm.changes, c)
	rm.Spans = append(rm.Spans, Span{tf.Line(tf.Pos(c.off)), tf.Line(tf.Pos(max(c.off, c.end-1)))})
}

func parentOf(n ast.Node, path []ast.Node) ast.Node {
	for i, p := range path {
		if p == n && i+1 < len(path) {
			return path[i+1]
		}
	}
	return nil
}

func indexOf(ids []*ast.Ident, id *ast.Ident) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// pureCalls are the builtins and conversions whose call has no side
// effect (panics aside) when the name is not redeclared in the file.
var pureCalls = map[string]bool{
	"len": true, "cap": true, "make": true, "new": true, "min": true, "max": true, "complex": true, "real": true, "imag": true,
	"bool": true, "string": true, "byte": true, "rune": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "float32": true, "float64": true,
	"complex64": true, "complex128": true, "any": true,
}

// pure reports whether evaluating n can have no side effect: no call but
// of the builtins above, no receive. A function literal is a value: its
// body does not run.
func pure(n ast.Node) bool {
	ok := true
	ast.Inspect(n, func(x ast.Node) bool {
		switch e := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			switch fn := ast.Unparen(e.Fun).(type) {
			case *ast.Ident:
				if !pureCalls[fn.Name] || fn.Obj != nil {
					ok = false
				}
			case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
			default:
				ok = false
			}
		case *ast.UnaryExpr:
			if e.Op == token.ARROW {
				ok = false
			}
		}
		return ok
	})
	return ok
}

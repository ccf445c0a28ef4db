package target

import (
	"cmp"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/heal/undertest"
)

// Bounds of a Python resolution.
const (
	maxPyRounds = 5  // outline requests after the first
	maxPyFiles  = 64 // files outlined
	maxPyDepth  = 3  // re-exports followed from one module to the next
)

// pyState holds the outlines of one Python resolution, keyed by real
// repo-relative path, and the files a pass found missing.
type pyState struct {
	r       *resolver
	out     map[string]*pyOutline
	missing []string
	note    string // set when the sources were read lexically
}

// pyOutlines returns the outlines of rels (with references when refs is
// set), asking the outline program for those not known yet, or reading
// them lexically when it cannot answer.
func (r *resolver) pyOutlines(ps *pyState, rels []string, refs bool) {
	var srcs, names []string
	var want []bool
	for _, rel := range rels {
		if _, ok := ps.out[rel]; ok || len(ps.out)+len(names) >= maxPyFiles || slices.Contains(names, rel) {
			continue
		}
		src, ok := r.read(rel)
		if !ok {
			ps.out[rel] = &pyOutline{Err: "unreadable"}
			continue
		}
		srcs, names, want = append(srcs, string(src)), append(names, rel), append(want, refs)
	}
	if len(names) == 0 {
		return
	}
	var got []pyOutline
	err := r.ctx.Err()
	switch {
	case r.opt.Lexical:
		err = errLexical
	case r.opt.Helper.Stalled():
		err = errStalledBefore
	case err == nil && r.py == nil:
		r.py = startPython(r.ctx, r.opt.Python, r.opt.ParseTimeout)
	}
	if err == nil {
		got, err = r.py.outline(r.ctx, srcs, want)
	}
	if err != nil {
		if errors.Is(err, ErrHelperStalled) {
			r.opt.Helper.markStalled()
		}
		ps.note = pyNote(err)
		got = make([]pyOutline, len(srcs))
		for i, s := range srcs {
			got[i] = lexOutline(s, want[i])
		}
	}
	for i, rel := range names {
		ps.out[rel] = &got[i]
	}
}

// enclosePython finds the innermost def or class around line.
func (r *resolver) enclosePython(rel string, _ []byte, line int, _ string) (span, bool, string) {
	ps := &pyState{r: r, out: map[string]*pyOutline{}}
	r.pyOutlines(ps, []string{rel}, false)
	o := ps.out[rel]
	if o == nil {
		return span{}, false, ps.note
	}
	var best *pyDef
	for i := range o.Defs {
		d := &o.Defs[i]
		if d.L <= line && line <= d.E && (best == nil || d.E-d.L < best.E-best.L) {
			best = d
		}
	}
	if best == nil {
		return span{}, false, ps.note
	}
	return span{start: best.L, end: best.E, name: pyModule(rel) + "." + best.Q}, true, ps.note
}

// pyRoot is a function of a test file (or a conftest) to collect
// references from.
type pyRoot struct {
	file string
	def  pyDef
	via  string // "" for the test itself, else the fixture or set-up
	line int    // the line ranked for its references, for fixtures
}

// pyUse is a reference found in a root, to resolve.
type pyUse struct {
	file  string
	parts []string
	call  bool
	line  int
	why   string
}

// pyCalls resolves the functions and classes a failing Python test uses:
// its test function (around the report's line, or named by the test
// name), its unittest set-up and its pytest fixtures, the helpers of its
// file one level deep, through the imports of the test file to the defs
// of the workspace's non-test modules.
func (r *resolver) pyCalls() []cand {
	testRel, ok := r.w.file(r.bug.FilePath)
	if !ok {
		return nil
	}
	ps := &pyState{r: r, out: map[string]*pyOutline{}}
	files := append([]string{testRel}, r.conftests(testRel)...)
	r.pyOutlines(ps, files, true)
	t := ps.out[testRel]
	if t == nil || t.Err != "" {
		return nil
	}
	uses := ps.uses(pyRoots(ps, testRel, files[1:], r.bug.LineNumber, r.testNames()))
	var out []cand
	for round := 0; ; round++ {
		ps.missing = nil
		out = ps.resolveAll(uses)
		if len(ps.missing) == 0 || round >= maxPyRounds || r.ctx.Err() != nil {
			break
		}
		r.pyOutlines(ps, ps.missing, false)
	}
	if ps.note != "" {
		for i := range out {
			out[i].Why += " (" + ps.note + ")"
		}
	}
	return out
}

// conftests lists the conftest.py files from the test's folder up to the
// workspace root.
func (r *resolver) conftests(testRel string) []string {
	var out []string
	for d := path.Dir(testRel); ; d = path.Dir(d) {
		if rel, ok := r.w.file(path.Join(d, "conftest.py")); ok {
			out = append(out, rel)
		}
		if d == "." || d == "/" {
			return out
		}
	}
}

// pyRoots finds the test function around line (or named by the test
// name), then its class's set-up methods and the fixtures its parameters
// name (in the test file or a conftest).
func pyRoots(ps *pyState, testRel string, conftests []string, line int, names []string) []pyRoot {
	t := ps.out[testRel]
	var roots []pyRoot
	add := func(r pyRoot) {
		if !slices.ContainsFunc(roots, func(o pyRoot) bool { return o.file == r.file && o.def.Q == r.def.Q }) {
			roots = append(roots, r)
		}
	}
	if d, ok := testAround(t, line); ok {
		add(pyRoot{file: testRel, def: d, line: line})
	}
	for _, d := range t.Defs {
		if d.Kind == "def" && slices.Contains(names, lastDotted(d.Q)) {
			add(pyRoot{file: testRel, def: d, line: d.D})
		}
	}
	files := append([]string{testRel}, conftests...)
	for _, root := range slices.Clone(roots) {
		for _, d := range setUps(t, root.def.Q) {
			add(pyRoot{file: testRel, def: d, via: lastDotted(d.Q), line: root.line})
		}
		for _, arg := range root.def.Args {
			if f, d, ok := fixture(ps, files, arg); ok {
				add(pyRoot{file: f, def: d, via: arg, line: root.line})
			}
		}
	}
	return roots
}

// testAround returns the def around line: the innermost test function
// when one holds the line, else the innermost def.
func testAround(t *pyOutline, line int) (pyDef, bool) {
	var inner *pyDef
	better := func(d *pyDef) bool {
		if inner == nil {
			return true
		}
		if isTestName(d.Q) != isTestName(inner.Q) {
			return isTestName(d.Q)
		}
		return d.E-d.L < inner.E-inner.L
	}
	for i := range t.Defs {
		if d := &t.Defs[i]; d.Kind == "def" && d.L <= line && line <= d.E && better(d) {
			inner = d
		}
	}
	if inner == nil {
		return pyDef{}, false
	}
	return *inner, true
}

// setUps returns the set-up methods of the class holding method q.
func setUps(t *pyOutline, q string) []pyDef {
	cls, _, ok := cutLastDot(q)
	if !ok {
		return nil
	}
	var out []pyDef
	for _, d := range t.Defs {
		if c, m, _ := cutLastDot(d.Q); c == cls && slices.Contains(pySetUps, m) {
			out = append(out, d)
		}
	}
	return out
}

// fixture finds the pytest fixture a parameter names: a top-level def of
// that name in the test file or a conftest.
func fixture(ps *pyState, files []string, arg string) (string, pyDef, bool) {
	if arg == "self" || arg == "cls" {
		return "", pyDef{}, false
	}
	for _, f := range files {
		if o := ps.out[f]; o != nil {
			if d, ok := topDef(o, arg); ok && d.Kind == "def" {
				return f, d, true
			}
		}
	}
	return "", pyDef{}, false
}

// isTestName reports whether a def's qualified name is a test's.
func isTestName(q string) bool { return strings.HasPrefix(lastDotted(q), "test") }

// pySetUps are the unittest and pytest-class set-up methods.
var pySetUps = []string{"setUp", "setUpClass", "asyncSetUp", "setup_method", "setup_class", "setup"}

// uses collects the references of each root, and of the helpers of the
// root's file it calls, one level deep.
func (ps *pyState) uses(roots []pyRoot) []pyUse {
	var out []pyUse
	for _, root := range roots {
		why := "called by " + lastDotted(root.def.Q)
		if root.via != "" {
			why = "used by " + root.via
		}
		o := ps.out[root.file]
		for _, ref := range refsIn(o, root.def) {
			line := ref.L
			if root.via != "" {
				line = root.line
			}
			parts := strings.Split(ref.R, ".")
			if h, ok := helper(o, root.def, parts); ok {
				for _, inner := range refsIn(o, h) {
					out = append(out, pyUse{file: root.file, parts: strings.Split(inner.R, "."), call: inner.Call, line: line, why: why + " through " + h.Q})
				}
				continue
			}
			out = append(out, pyUse{file: root.file, parts: parts, call: ref.Call, line: line, why: why})
		}
	}
	return out
}

// helper finds the def of the test file a reference of root names: a
// module-level function, or a method of root's class through self.
func helper(o *pyOutline, root pyDef, parts []string) (pyDef, bool) {
	switch {
	case len(parts) == 1:
		if h, ok := topDef(o, parts[0]); ok && h.Kind == "def" && h.Q != root.Q {
			return h, true
		}
	case len(parts) == 2 && parts[0] == "self":
		if h, ok := methodOf(o, root.Q, parts[1]); ok && h.Q != root.Q {
			return h, true
		}
	}
	return pyDef{}, false
}

// refsIn returns the references of o inside d's lines.
func refsIn(o *pyOutline, d pyDef) []pyRef {
	var out []pyRef
	for _, ref := range o.Refs {
		if d.L <= ref.L && ref.L <= d.E && ref.R != "" {
			out = append(out, ref)
		}
	}
	return out
}

// methodOf finds a method of the class that holds method q.
func methodOf(o *pyOutline, q, name string) (pyDef, bool) {
	cls, _, ok := cutLastDot(q)
	if !ok {
		return pyDef{}, false
	}
	for _, d := range o.Defs {
		if d.Q == cls+"."+name && d.Kind == "def" {
			return d, true
		}
	}
	return pyDef{}, false
}

// pyHit is a def or class a reference resolved to.
type pyHit struct {
	file string
	def  pyDef
}

// resolveAll resolves every use, then the method calls on values the
// resolver cannot type (`c.add()` after `c = Calc()`) against the methods
// of the classes found.
func (ps *pyState) resolveAll(uses []pyUse) []cand {
	hits := make([]pyHit, len(uses))
	found := make([]bool, len(uses))
	var classes []pyHit
	for i, u := range uses {
		hits[i], found[i] = ps.resolve(u.file, u.parts, 0)
		if found[i] && hits[i].def.Kind == "class" {
			classes = append(classes, hits[i])
		}
	}
	var out []cand
	for i, u := range uses {
		h := hits[i]
		switch {
		case found[i] && h.def.Kind == "class" && u.call:
			if init, ok := ps.member(h, "__init__"); ok {
				h = init
			}
		case found[i] && h.def.Kind == "class":
			continue
		case !found[i] && len(u.parts) > 1 && u.call:
			for _, c := range classes {
				if m, ok := ps.member(c, u.parts[len(u.parts)-1]); ok && !isTestFile(m.file) {
					out = append(out, ps.cand(m, u))
				}
			}
			continue
		case !found[i]:
			continue
		}
		if !isTestFile(h.file) {
			out = append(out, ps.cand(h, u))
		}
	}
	return out
}

func (ps *pyState) cand(h pyHit, u pyUse) cand {
	return cand{Region: undertest.Region{Path: h.file, Start: h.def.L, End: h.def.E, Symbol: pyModule(h.file) + "." + h.def.Q, Why: u.why}, name: lastDotted(h.def.Q), line: u.line}
}

// member finds a method of a class hit.
func (ps *pyState) member(c pyHit, name string) (pyHit, bool) {
	o := ps.out[c.file]
	for _, d := range o.Defs {
		if d.Q == c.def.Q+"."+name && d.Kind == "def" {
			return pyHit{file: c.file, def: d}, true
		}
	}
	return pyHit{}, false
}

// resolve follows a dotted reference of file through its imports to a
// def or class. A module not outlined yet is noted in ps.missing.
func (ps *pyState) resolve(file string, parts []string, depth int) (pyHit, bool) {
	o := ps.out[file]
	if o == nil || depth > maxPyDepth || len(parts) == 0 || parts[0] == "?" {
		return pyHit{}, false
	}
	for _, im := range o.Imports {
		switch {
		case im.N == "" && im.A != "" && im.A == parts[0]:
			// import a.b as x: x.f
			return ps.inModule(file, im.M, 0, parts[1:], depth)
		case im.N == "" && im.A == "" && firstDotted(im.M) == parts[0]:
			// import a.b: a.b.f, the longest module first
			for k := len(parts) - 1; k >= 1; k-- {
				if mod := strings.Join(parts[:k], "."); ps.module(file, mod, 0) != "" {
					return ps.inModule(file, mod, 0, parts[k:], depth)
				}
			}
		case im.N != "" && im.N != "*" && cmp.Or(im.A, im.N) == parts[0]:
			// from m import n as x: x, x.f; n may be a submodule
			if len(parts) > 1 && ps.module(file, joinDotted(im.M, im.N), im.Level) != "" {
				return ps.inModule(file, joinDotted(im.M, im.N), im.Level, parts[1:], depth)
			}
			return ps.inModule(file, im.M, im.Level, append([]string{im.N}, parts[1:]...), depth)
		}
	}
	// from m import *: a package's usual re-export of its modules. The
	// last such import binds the name, so they are tried from the last;
	// a name with a leading underscore is never exported that way.
	if strings.HasPrefix(parts[0], "_") {
		return pyHit{}, false
	}
	for i := len(o.Imports) - 1; i >= 0; i-- {
		if im := o.Imports[i]; im.N == "*" {
			if h, ok := ps.inModule(file, im.M, im.Level, parts, depth+1); ok {
				return h, true
			}
		}
	}
	return pyHit{}, false
}

// inModule looks names up in a module: a top-level def or class (a
// method when the name goes on), else a name the module imports itself.
func (ps *pyState) inModule(from, mod string, level int, names []string, depth int) (pyHit, bool) {
	file := ps.module(from, mod, level)
	if file == "" || len(names) == 0 {
		return pyHit{}, false
	}
	o := ps.out[file]
	if o == nil {
		if !slices.Contains(ps.missing, file) {
			ps.missing = append(ps.missing, file)
		}
		return pyHit{}, false
	}
	if d, ok := topDef(o, names[0]); ok {
		h := pyHit{file: file, def: d}
		if d.Kind == "class" && len(names) > 1 {
			if m, ok := ps.member(h, names[1]); ok {
				return m, true
			}
		}
		return h, true
	}
	if path.Base(file) == "__init__.py" && len(names) > 1 {
		if sub := joinDotted(mod, names[0]); ps.module(from, sub, level) != "" {
			return ps.inModule(from, sub, level, names[1:], depth+1)
		}
	}
	return ps.resolve(file, names, depth+1)
}

// module maps a module name, imported from file with level leading dots,
// to the first workspace file that holds it: relative to file's package
// for a relative import; else from the workspace root, src/, and each
// folder from the test's up to the root.
func (ps *pyState) module(from, mod string, level int) string {
	rel := strings.ReplaceAll(mod, ".", "/")
	var bases []string
	if level > 0 {
		base := path.Dir(from)
		for range level - 1 {
			base = path.Dir(base)
		}
		bases = []string{base}
	} else {
		bases = []string{".", "src"}
		for d := path.Dir(from); d != "." && d != "/"; d = path.Dir(d) {
			bases = append(bases, d)
		}
	}
	for _, b := range bases {
		for _, c := range []string{rel + ".py", rel + "/__init__.py"} {
			if rel == "" && c == ".py" {
				continue
			}
			if f, ok := ps.r.w.file(path.Join(b, strings.TrimPrefix(c, "/"))); ok {
				return f
			}
		}
	}
	return ""
}

func topDef(o *pyOutline, name string) (pyDef, bool) {
	for _, d := range o.Defs {
		if d.Q == name {
			return d, true
		}
	}
	return pyDef{}, false
}

// pyModule names a file's module: calc/ops.py -> calc.ops, with a leading
// src/ and a trailing __init__ dropped.
func pyModule(rel string) string {
	m := strings.TrimSuffix(strings.TrimPrefix(rel, "src/"), ".py")
	m = strings.TrimSuffix(m, "/__init__")
	return strings.ReplaceAll(m, "/", ".")
}

func cutLastDot(q string) (string, string, bool) {
	i := strings.LastIndexByte(q, '.')
	if i < 0 {
		return "", q, false
	}
	return q[:i], q[i+1:], true
}

func lastDotted(q string) string { _, n, _ := cutLastDot(q); return n }

func firstDotted(q string) string { f, _, _ := strings.Cut(q, "."); return f }

func joinDotted(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

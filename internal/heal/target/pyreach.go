package target

import (
	"slices"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/internal/heal/undertest"
)

// pyReached is reached for Python: the functions of each region's own
// module that it calls in turn, at any depth, nearest first, within the
// bounds of goReached. A call is read from the module's references: a
// plain name calls the module's function of that name; self.m or cls.m,
// the method m of the class the caller is in; C.m, the method m of the
// module's class C. The outlines come from the same program (or lexical
// reading) as the test's own calls, asked again with the references. A
// function another def, a class body or the module itself also calls is
// left out (privateTo).
func (r *resolver) pyReached(shown []cand) []cand {
	ps := &pyState{r: r, out: map[string]*pyOutline{}}
	key := func(rel string, start int) string { return rel + ":" + strconv.Itoa(start) }
	var files []string
	for _, c := range shown {
		if strings.HasSuffix(c.Path, ".py") && !isTestFile(c.Path) {
			files = append(files, c.Path)
		}
	}
	if len(files) == 0 {
		return nil
	}
	r.pyOutlines(ps, files, true)
	out := reach(shown, func(c cand) []cand {
		o := ps.out[c.Path]
		if o == nil {
			return nil
		}
		var next []cand
		for _, from := range o.Defs {
			if from.L != c.Start || from.Kind != "def" {
				continue
			}
			for _, d := range pyCallees(o, from) {
				next = append(next, cand{Region: undertest.Region{Path: c.Path, Start: d.L, End: d.E, Symbol: pyModule(c.Path) + "." + d.Q}, name: lastDotted(d.Q)})
			}
		}
		return next
	})
	if ps.note != "" {
		for i := range out {
			out[i].Why += " (" + ps.note + ")"
		}
	}
	callers, external := map[string][]string{}, map[string]bool{}
	for rel, o := range ps.out {
		if o == nil || o.Err != "" {
			continue
		}
		for _, d := range o.Defs {
			if d.Kind != "def" {
				continue
			}
			for _, callee := range pyCallees(o, d) {
				callers[key(rel, callee.L)] = append(callers[key(rel, callee.L)], key(rel, d.L))
			}
		}
		// What the module or a class body calls, outside every def.
		var top []pyRef
		for _, ref := range o.Refs {
			if !inDef(o, ref.L) {
				top = append(top, ref)
			}
		}
		for _, callee := range pyCalleesIn(o, pyDef{Q: "<module>"}, top) {
			external[key(rel, callee.L)] = true
		}
	}
	return privateTo(shown, out, callers, external)
}

// inDef says whether line is inside a def of module o.
func inDef(o *pyOutline, line int) bool {
	for _, d := range o.Defs {
		if d.Kind == "def" && line >= d.D && line <= d.E {
			return true
		}
	}
	return false
}

// pyCallees returns the defs of module o that def from calls, in the
// order they are declared (the outline program and the lexical reading
// list a line's references in different orders): a plain name, the module's function of that
// name or its class's __init__; self.m or cls.m, the method m of from's
// class; C.m, the method m of the module's class C; any other x.m (a
// local, a call's result), every method m of the module.
func pyCallees(o *pyOutline, from pyDef) []pyDef {
	if o == nil || o.Err != "" {
		return nil
	}
	var refs []pyRef
	for _, ref := range o.Refs {
		if ref.L >= from.D && ref.L <= from.E {
			refs = append(refs, ref)
		}
	}
	return pyCalleesIn(o, from, refs)
}

// pyCalleesIn is pyCallees of the references refs, read as from's.
func pyCalleesIn(o *pyOutline, from pyDef, refs []pyRef) []pyDef {
	byQ := map[string]pyDef{}
	classes := map[string]bool{}
	methods := map[string][]pyDef{}
	for _, d := range o.Defs {
		switch {
		case d.Kind == "class":
			classes[d.Q] = true
		case d.Kind == "def":
			byQ[d.Q] = d
			if i := strings.LastIndex(d.Q, "."); i > 0 {
				methods[d.Q[i+1:]] = append(methods[d.Q[i+1:]], d)
			}
		}
	}
	class := ""
	if i := strings.LastIndex(from.Q, "."); i > 0 {
		class = from.Q[:i]
	}
	var out []pyDef
	add := func(q string) bool {
		d, ok := byQ[q]
		if ok && d.Q != from.Q {
			out = append(out, d)
		}
		return ok
	}
	for _, ref := range refs {
		if !ref.Call {
			continue
		}
		head, m, dotted := strings.Cut(ref.R, ".")
		switch {
		case !dotted:
			if !add(head) && classes[head] {
				add(head + ".__init__")
			}
		case strings.Contains(m, "."):
		case (head == "self" || head == "cls") && class != "" && add(class+"."+m):
		case classes[head]:
			add(head + "." + m)
		default:
			for _, d := range methods[m] {
				if d.Q != from.Q {
					out = append(out, d)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b pyDef) int { return a.L - b.L })
	return out
}

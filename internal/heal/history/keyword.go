package history

import (
	"fmt"
	"strings"
)

// keywords records, from a declaration of one function whose parameter
// list changed with its length kept (r to a), each parameter the commit
// renamed with its default and annotation kept: a keyword a call may
// still pass by its old name (Python's f(size=5)). A parameter renamed
// two ways is recorded as "" (a conflict).
func (ev *Evidence) keywords(r, a decl) {
	for _, rn := range renamedParams(r, a, paramName) {
		old, nw := rn[0], rn[1]
		m := ev.Keywords[r.name]
		if m == nil {
			m = map[string]string{}
			ev.Keywords[r.name] = m
		}
		if prev, ok := m[old]; ok && prev != nw {
			m[old] = ""
			continue
		}
		m[old] = nw
	}
}

// renamedParams returns the parameters (old and new name) that a
// declaration of one function whose parameter list changed with its
// length kept (r to a) renamed and changed nothing else of, read with
// split (a parameter's name and the rest).
func renamedParams(r, a decl, split func(string) (name, rest string)) [][2]string {
	if r.name != a.name || len(r.params) != len(a.params) {
		return nil
	}
	var out [][2]string
	for i := range r.params {
		old, restOld := split(r.params[i])
		nw, restNew := split(a.params[i])
		if old != "" && nw != "" && old != nw && restOld == restNew {
			out = append(out, [2]string{old, nw})
		}
	}
	return out
}

// paramName splits a parameter as declared ("*args", "size: int = 10")
// into its name and the rest.
func paramName(p string) (name, rest string) {
	p = strings.TrimLeft(p, "* ")
	i := 0
	for i < len(p) && isIdent(p[i]) {
		i++
	}
	if !isName(p[:i]) {
		return "", ""
	}
	return p[:i], strings.TrimSpace(p[i:])
}

// keyword renames, in the calls of a.fn on line ln, the keyword argument
// a.name the report says the function no longer takes, as the commit
// renamed the parameter in the function's declaration.
func (pl *planner) keyword(n int, ln span, a ask) error {
	nw, ok := pl.ev.Keywords[a.fn][a.name]
	switch {
	case !ok:
		return fmt.Errorf("%s's keyword %s: %w", a.fn, a.name, errNoEvidence)
	case nw == "":
		return fmt.Errorf("the commit renames %s's parameter %s two ways", a.fn, a.name)
	}
	var es []edit
	for _, c := range callsOnLine(pl.m, named(a.fn), ln) {
		for _, arg := range c.args {
			t := tokens(pl.m[arg.start:arg.end], "")
			if len(t) >= 2 && t[0].text == a.name && t[1].text == "=" && (len(t) == 2 || t[2].text != "=") {
				es = append(es, edit{arg.start + t[0].start, arg.start + t[0].end, nw})
			}
		}
	}
	if len(es) == 0 {
		return fmt.Errorf("no call of %s passing %s= on the line", a.fn, a.name)
	}
	pl.add(es)
	pl.done = append(pl.done, fmt.Sprintf("line %d: the keyword %s= of %s renamed to %s=, as the commit renamed the parameter", n, a.name, a.fn, nw))
	return nil
}

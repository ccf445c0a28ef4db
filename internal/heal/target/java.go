package target

import (
	"path"
	"strings"

	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lazyre"
)

// A Java test calls the code under test through the classes it names: an
// import, a class of its own package, or the class its name follows
// (CalcTest tests Calc). The resolver reads those lexically: the test's
// package and imports, the types of its fields and locals, and the
// methods of the classes' source files.
var (
	javaPkgRe    = lazyre.New(`(?m)^\s*package\s+([\w.]+)\s*;`)
	javaImportRe = lazyre.New(`(?m)^\s*import\s+(static\s+)?([\w.]+?)(\.\*)?\s*;`)
	// javaVarRe is a field, local or parameter of a class type: its type
	// and its name.
	javaVarRe = lazyre.New(`\b([A-Z]\w*)(?:\s*<[^;=(){}]*>)?\s+([a-z_$][\w$]*)\s*[=;,)]`)
	// javaVarNewRe is `var c = new Calc(…)`.
	javaVarNewRe = lazyre.New(`\bvar\s+([\w$]+)\s*=\s*new\s+([A-Z]\w*)`)
	// javaNewRecvRe is the `new Calc(…)` a chained call is made on.
	javaNewRecvRe = lazyre.New(`new\s+([A-Z]\w*)\s*(?:<[^()]*>)?\s*$`)
)

// javaScope is what a Java test file can name: its package, the classes
// it imports by simple name, the methods it imports statically, the
// packages and classes it imports with '*', and its variables' types.
type javaScope struct {
	pkg         string
	classes     map[string]string // simple name -> qualified
	statics     map[string]string // method -> qualified class
	wildPkgs    []string
	wildStatics []string // qualified classes
	vars        map[string]string
	conv        string // the class the test file's name follows
}

func readJavaScope(testRel, code string) javaScope {
	s := javaScope{classes: map[string]string{}, statics: map[string]string{}, vars: map[string]string{}}
	if m := javaPkgRe.FindStringSubmatch(code); m != nil {
		s.pkg = m[1]
	}
	for _, m := range javaImportRe.FindAllStringSubmatch(code, 512) {
		static, name, wild := m[1] != "", m[2], m[3] != ""
		switch {
		case static && wild:
			s.wildStatics = append(s.wildStatics, name)
		case static:
			cls, fn, _ := cutLastDot(name)
			s.statics[fn] = cls
		case wild:
			s.wildPkgs = append(s.wildPkgs, name)
		default:
			s.classes[lastDotted(name)] = name
		}
	}
	for _, m := range javaVarRe.FindAllStringSubmatch(code, 4096) {
		if _, ok := s.vars[m[2]]; !ok {
			s.vars[m[2]] = m[1]
		}
	}
	for _, m := range javaVarNewRe.FindAllStringSubmatch(code, 4096) {
		s.vars[m[1]] = m[2]
	}
	base := strings.TrimSuffix(path.Base(testRel), ".java")
	for _, suf := range []string{"Tests", "Test", "IT", "TestCase"} {
		if c, ok := strings.CutSuffix(base, suf); ok && c != "" {
			s.conv = c
			break
		}
	}
	if s.conv == "" {
		s.conv = strings.TrimPrefix(base, "Test")
	}
	return s
}

// javaCalls resolves, lexically, the methods and constructors a failing
// Java test calls on the classes it can name, to their declarations in
// the workspace's non-test sources.
func (r *resolver) javaCalls() []cand {
	t, ok := r.readTest([]string{".java"}, javaLex)
	if !ok {
		return nil
	}
	code, from, to, lines := t.code, t.from, t.to, t.lines
	sc := readJavaScope(t.rel, code)
	why := "called by " + t.name + " (lexical)"
	var out, ctors []cand
	for _, c := range readCalls(code, from, to, lines) {
		if r.ctx.Err() != nil {
			break
		}
		var classes []string
		method := c.name
		switch {
		case c.isNew:
			classes = []string{c.name}
		case c.recv == "" && strings.HasSuffix(strings.TrimSpace(code[:c.offset]), ")."):
			if t, ok := javaChained(code[:c.offset]); ok {
				classes = []string{t}
			}
		case c.recv == "":
			if cls, ok := sc.statics[c.name]; ok {
				classes = []string{cls}
			} else {
				classes = sc.wildStatics
			}
		case c.recv == "this" || c.recv == "super":
			continue
		case sc.vars[c.recv] != "":
			classes = []string{sc.vars[c.recv]}
		case c.recv[0] >= 'A' && c.recv[0] <= 'Z':
			classes = []string{c.recv}
		default:
			classes = []string{sc.conv}
		}
		for _, cls := range classes {
			file, ok := r.javaClassFile(sc, cls)
			if !ok {
				continue
			}
			for _, d := range r.javaMethods(file, lastDotted(cls), method) {
				cd := cand{Region: undertest.Region{Path: file, Start: d.start, End: d.end, Symbol: d.symbol("."), Why: why}, name: method, line: c.line}
				if c.isNew {
					ctors = append(ctors, cd)
				} else {
					out = append(out, cd)
				}
			}
		}
	}
	return append(out, ctors...)
}

// javaChained finds the class of `new Calc(…).` before a chained call.
func javaChained(before string) (string, bool) {
	b := strings.TrimSuffix(strings.TrimSpace(before), ".")
	depth := 0
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				if m := javaNewRecvRe.FindStringSubmatch(b[:i]); m != nil {
					return m[1], true
				}
				return "", false
			}
		}
	}
	return "", false
}

// javaClassFile finds the non-test source of a class: by its qualified
// name when the test imports it, else in the test's package, its
// wildcard imports, and last anywhere by its file name.
func (r *resolver) javaClassFile(sc javaScope, cls string) (string, bool) {
	var quals []string
	switch {
	case strings.Contains(cls, "."):
		quals = []string{cls}
	case sc.classes[cls] != "":
		quals = []string{sc.classes[cls]}
	default:
		quals = append(quals, joinDotted(sc.pkg, cls))
		for _, p := range sc.wildPkgs {
			quals = append(quals, p+"."+cls)
		}
	}
	for _, q := range quals {
		for _, f := range r.w.findSuffix(strings.ReplaceAll(q, ".", "/") + ".java") {
			if !isTestFile(f) {
				return f, true
			}
		}
	}
	if strings.Contains(cls, ".") || sc.classes[cls] != "" {
		return "", false
	}
	for _, f := range r.w.findSuffix(cls + ".java") {
		if !isTestFile(f) {
			return f, true
		}
	}
	return "", false
}

// javaMethods returns the declarations of a method (or, named like the
// class, its constructors) in a class of file.
func (r *resolver) javaMethods(file, cls, method string) []braceDef {
	src, ok := r.read(file)
	if !ok {
		return nil
	}
	_, defs := braceDefs(string(src), lexOf(file, javaLex))
	var out []braceDef
	for _, d := range defs {
		if d.name == method && !d.nested && d.owner() == cls {
			out = append(out, d)
		}
	}
	return out
}

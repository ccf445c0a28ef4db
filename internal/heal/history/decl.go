package history

import (
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// declRow is one shape of declaration line: its family, a kind (two lines
// are one declaration renamed only when their kinds match), and a pattern
// whose group "name" is the declared name. When params is set, the match
// ends at the "(" that opens the parameter list.
type declRow struct {
	fam    family
	kind   string
	re     *lazyre.Regexp
	params bool
	// not lists words that make a match no declaration (C statements
	// that look like a function definition).
	not []string
}

// cStatements are C keywords a function-definition pattern must not take
// for a return type.
var cStatements = []string{"return", "else", "if", "while", "for", "switch", "case", "do", "goto", "sizeof", "defined", "new", "delete", "throw"}

// declTable lists the declaration lines the tier recognises, per family.
var declTable = []declRow{
	{fam: famGo, kind: "func", params: true, re: lazyre.New(`^\s*func\s+(?:\([^()]*\)\s*)?(?P<name>[A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?\(`)},
	{fam: famGo, kind: "type", re: lazyre.New(`^\s*type\s+(?P<name>[A-Za-z_]\w*)\b`)},
	{fam: famGo, kind: "var", re: lazyre.New(`^\s*(?:var|const)\s+(?P<name>[A-Za-z_]\w*)\b`)},
	// A line of a const or var block: "\tName", "\tName Type = value".
	// No statement of a function body has either shape.
	{fam: famGo, kind: "spec", re: lazyre.New(`^\s+(?P<name>[A-Za-z_]\w*)\s*$`)},
	{fam: famGo, kind: "spec", re: lazyre.New(`^\s+(?P<name>[A-Za-z_]\w*)\s+[A-Za-z_][\w.]*\s*=[^=]`)},

	{fam: famC, kind: "define", re: lazyre.New(`^\s*#\s*define\s+(?P<name>[A-Za-z_]\w*)`)},
	{fam: famC, kind: "func", params: true, not: cStatements,
		re: lazyre.New(`^\s*(?P<type>(?:[A-Za-z_]\w*[\s*&]+)+?)(?P<name>[A-Za-z_]\w*)\s*\(`)},
	{fam: famC, kind: "tag", re: lazyre.New(`^\s*(?:typedef\s+)?(?:struct|union|enum|class)\s+(?P<name>[A-Za-z_]\w*)\s*(?:\{|:|$)`)},
	{fam: famC, kind: "typedef", re: lazyre.New(`^\s*typedef\b[^;(]*?\b(?P<name>[A-Za-z_]\w*)\s*;`)},

	{fam: famPython, kind: "def", params: true, re: lazyre.New(`^\s*(?:async\s+)?def\s+(?P<name>[A-Za-z_]\w*)\s*\(`)},
	{fam: famPython, kind: "class", re: lazyre.New(`^\s*class\s+(?P<name>[A-Za-z_]\w*)\b`)},
	{fam: famPython, kind: "global", re: lazyre.New(`^(?P<name>[A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]`)},

	{fam: famJS, kind: "function", params: true, re: lazyre.New(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^>]*>\s*)?\(`)},
	{fam: famJS, kind: "arrow", params: true, re: lazyre.New(`^\s*(?:export\s+)?(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\s*)?\(`)},
	{fam: famJS, kind: "binding", re: lazyre.New(`^\s*(?:export\s+)?(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\b`)},
	{fam: famJS, kind: "class", re: lazyre.New(`^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:class|interface|enum)\s+(?P<name>[A-Za-z_$][\w$]*)\b`)},
	{fam: famJS, kind: "type", re: lazyre.New(`^\s*(?:export\s+)?type\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^>]*>\s*)?=`)},

	// Java: a type, a constructor (an access modifier, then the class's
	// name and its parameters), a method (a return type, the name, the
	// parameters), a field or local variable (a type, the name, then
	// "=" or ";"). Annotations and modifiers may come first.
	{fam: famJava, kind: "class", re: lazyre.New(javaPrefix + `(?:class|interface|enum|record|@interface)\s+(?P<name>[A-Za-z_$][\w$]*)\b`)},
	{fam: famJava, kind: "ctor", params: true, re: lazyre.New(`^\s*` + javaAnnotations + `(?:public|protected|private)\s+(?P<name>[A-Z][\w$]*)\s*\(`)},
	{fam: famJava, kind: "method", params: true, not: javaNotTypes,
		re: lazyre.New(javaPrefix + `(?:<[^()]*>\s+)?(?P<type>` + javaType + `)\s+(?P<name>[A-Za-z_$][\w$]*)\s*\(`)},
	{fam: famJava, kind: "var", not: javaNotTypes,
		re: lazyre.New(javaPrefix + `(?P<type>` + javaType + `)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?:=[^=]|;|$)`)},

	// Rust: a function, a type, a constant or static, a let binding.
	{fam: famRust, kind: "fn", params: true, re: lazyre.New(rustVis + `(?:(?:const|async|unsafe)\s+)*fn\s+(?P<name>[A-Za-z_]\w*)\s*(?:<[^()]*>\s*)?\(`)},
	{fam: famRust, kind: "type", re: lazyre.New(rustVis + `(?:struct|enum|trait|type|union|mod)\s+(?P<name>[A-Za-z_]\w*)\b`)},
	{fam: famRust, kind: "const", re: lazyre.New(rustVis + `(?:const|static)\s+(?:mut\s+)?(?P<name>[A-Za-z_]\w*)\s*:`)},
	{fam: famRust, kind: "let", re: lazyre.New(`^\s*let\s+(?:mut\s+)?(?P<name>[A-Za-z_]\w*)\b`)},
}

// rustVis is the start of a Rust item: blanks and a visibility.
const rustVis = `^\s*(?:pub(?:\([^()]*\))?\s+)?`

// Pieces of the Java rows: annotations, modifiers, and a type (a
// qualified name, type arguments, array brackets).
const (
	javaAnnotations = `(?:@[A-Za-z_$][\w$.]*(?:\([^()]*\))?\s+)*`
	javaPrefix      = `^\s*` + javaAnnotations + `(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp|synchronized|native|default|transient|volatile)\s+)*`
	javaType        = `[A-Za-z_$][\w$.]*(?:\s*<[\w$.,<>?\[\]\s]*>)?(?:\s*\[\s*\])*(?:\.\.\.)?`
)

// javaNotTypes are Java words a method or variable row must not take for
// a type: statements (return x;, throw e;, new T(...)) and modifiers.
var javaNotTypes = []string{"return", "throw", "new", "else", "case", "yield", "assert", "package", "import", "break", "continue", "goto",
	"public", "protected", "private", "static", "final", "abstract", "synchronized", "native", "default", "transient", "volatile", "instanceof"}

// decl is a declaration found on a line.
type decl struct {
	kind, name string
	// params are the parameters' texts, nil when the line declares no
	// function or its parameter list does not close on the line.
	params []string
	// hasParams says params was read (a function with none has an empty,
	// non-nil list).
	hasParams bool
}

// declOf returns the declaration on one line of code of a file of family
// fam at p, if the line is one.
func declOf(line, p string, fam family) (decl, bool) {
	m := mask(line, p)
	for _, r := range declTable {
		if r.fam != fam {
			continue
		}
		idx := r.re.FindStringSubmatchIndex(m)
		if idx == nil {
			continue
		}
		g := r.re.SubexpIndex("name")
		d := decl{kind: r.kind, name: m[idx[2*g]:idx[2*g+1]]}
		if t := r.re.SubexpIndex("type"); t >= 0 && idx[2*t] >= 0 && excluded(m[idx[2*t]:idx[2*t+1]], r.not) {
			continue
		}
		if r.params {
			if c, ok := parseCall(m, idx[1]-1); ok {
				d.hasParams = true
				d.params = make([]string, 0, len(c.args))
				for _, a := range c.args {
					d.params = append(d.params, norm(line[a.start:a.end], p))
				}
			}
		}
		return d, true
	}
	return decl{}, false
}

// excluded reports whether the words of s include one of not.
func excluded(s string, not []string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '*' || r == '&' }) {
		for _, n := range not {
			if w == n {
				return true
			}
		}
	}
	return false
}

// declares reports whether content, a whole file of family fam at p,
// declares name on some line.
func declares(content, p string, fam family, name string) bool {
	for _, l := range strings.Split(content, "\n") {
		if !strings.Contains(l, name) {
			continue
		}
		if d, ok := declOf(l, p, fam); ok && d.name == name {
			return true
		}
	}
	return false
}

// Package missing reads what a toolchain's report says is missing or
// wrong about a name: a name not declared (the old name of a rename), a
// call with the wrong number of arguments, a Go example named after a
// name no longer declared, a keyword argument a function no longer takes,
// a struct literal or initializer missing a field.
// One table of each toolchain's wording (go, gcc and clang, Python with
// pyflakes, ruff and pyright, node, tsc and eslint, javac, ecj and
// Kotlin, rustc) serves the history tier, which finishes such renames, and
// the integrity policy, which lets a test be renamed only where a report
// says a name is missing. The rules and suggest tiers and the log parser
// read some wordings with patterns of their own (for more than the name);
// their tests hold every such pattern to this table, and a test in
// internal/housetest finds a pattern no test holds.
package missing

import "github.com/salve-dev/salve/internal/lazyre"

// Need says what a report asks for.
type Need int

const (
	// Name: a name is not declared (a rename's old name).
	Name Need = iota + 1
	// Arity: a call has the wrong number of arguments.
	Arity
	// Example: a Go example's name refers to a name no longer declared
	// (go vet's tests analyzer); Ask.Fn is the example.
	Example
	// Keyword: a call passes a keyword argument the function no longer
	// takes; Ask.Fn is the function.
	Keyword
	// Field: a struct literal or initializer lacks a field (or, for an
	// unkeyed Go literal, a value); Ask.Name is the field when the
	// message names one, Ask.Fn the type. What value the field takes is
	// a choice no such message makes (the zero value compiles, yet what
	// the literal meant may be another), so no tier fills it in.
	Field
)

// reportRow is one shape of message. The pattern's group
// "name", when present, is the name the message is about; a message
// without one (tsc's TS2554) applies to the calls on the reported line.
type reportRow struct {
	tool string
	need Need
	re   *lazyre.Regexp
}

// q matches gcc's quotes, ASCII or typographic.
const q = `[‘'"]`
const eq = `[’'"]`

// reportTable lists the messages of missing names and wrong arities, one
// toolchain's wording per row.
var reportTable = []reportRow{
	{"go", Name, lazyre.New(`\bundefined: (?:[A-Za-z_]\w*\.)?(?P<name>[A-Za-z_]\w*)`)},
	{"go", Name, lazyre.New(`\bhas no field or method (?P<name>[A-Za-z_]\w*)`)},
	{"go", Example, lazyre.New(`\b(?P<fn>Example\w*) refers to unknown (?:identifier: |field or method: [A-Za-z_]\w*\.)(?P<name>[A-Za-z_]\w*)`)},
	{"go", Arity, lazyre.New(`\b(?:not enough|too many) arguments in call to (?:[\w.()*]*\.)?(?P<name>[A-Za-z_]\w*)`)},
	{"go", Field, lazyre.New(`\btoo few values in struct literal(?: of type (?:[\w.*]*\.)?(?P<fn>[A-Za-z_]\w*))?`)},

	{"cc", Name, lazyre.New(q + `(?P<name>[A-Za-z_]\w*)` + eq + ` undeclared`)},
	{"cc", Name, lazyre.New(`implicit declaration of function ` + q + `(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", Name, lazyre.New(`(?:use of undeclared identifier|call to undeclared function|unknown type name) ` + q + `(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", Name, lazyre.New(`(?:has )?no member named ` + q + `(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", Name, lazyre.New(q + `(?P<name>[A-Za-z_]\w*)` + eq + ` (?:was not declared in this scope|has not been declared|is not a member of)`)},
	{"cc", Arity, lazyre.New(`too (?:few|many) arguments to function ` + q + `(?:[\w:]*::)?(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", Arity, lazyre.New(`too (?:few|many) arguments to function call`)},
	{"cc", Field, lazyre.New(`missing (?:initializer|field) (?:for (?:field|member) )?` + q + `(?:[\w:]*::)?(?P<name>[A-Za-z_]\w*)` + eq + `(?: (?:of|initializer) ` + q + `(?:struct |class )?(?:[\w:]*::)?(?P<fn>[A-Za-z_]\w*)` + eq + `)?`)},

	{"python", Name, lazyre.New(`NameError: name '(?P<name>[A-Za-z_]\w*)' is not defined`)},
	{"python", Name, lazyre.New(`AttributeError: .* has no attribute '(?P<name>[A-Za-z_]\w*)'`)},
	{"python", Name, lazyre.New(`ImportError: cannot import name '(?P<name>[A-Za-z_]\w*)'`)},
	{"python", Name, lazyre.New(`\bundefined name [` + "`" + `'"](?P<name>[A-Za-z_]\w*)[` + "`" + `'"]`)}, // pyflakes, ruff F821
	{"python", Name, lazyre.New(`^"(?P<name>[A-Za-z_]\w*)" is not defined`)},                              // pyright, mypy
	{"python", Keyword, lazyre.New(`TypeError: (?:[\w.<>]*\.)?(?P<fn>[A-Za-z_]\w*)\(\) got an unexpected keyword argument '(?P<name>[A-Za-z_]\w*)'`)},
	{"python", Arity, lazyre.New(`TypeError: (?:[\w.<>]*\.)?(?P<name>[A-Za-z_]\w*)\(\) (?:missing \d+ required (?:positional|keyword-only) arguments?|takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:was|were) given)`)},

	{"js", Name, lazyre.New(`(?:^|ReferenceError: )(?P<name>[A-Za-z_$][\w$]*) is not defined`)},
	{"js", Name, lazyre.New(`(?:^|TypeError: )(?:[\w$.]*\.)?(?P<name>[A-Za-z_$][\w$]*) is not a function`)},
	{"js", Name, lazyre.New(`Cannot find name '(?P<name>[A-Za-z_$][\w$]*)'`)},
	{"js", Name, lazyre.New(`^'(?P<name>[A-Za-z_$][\w$]*)' is not defined`)}, // eslint no-undef
	{"js", Name, lazyre.New(`Property '(?P<name>[A-Za-z_$][\w$]*)' does not exist on type`)},
	{"js", Name, lazyre.New(`does not provide an export named '(?P<name>[A-Za-z_$][\w$]*)'`)},
	{"js", Name, lazyre.New(`has no exported member (?:named )?'(?P<name>[A-Za-z_$][\w$]*)'`)},
	{"js", Arity, lazyre.New(`Expected (?:at least )?\d+(?:-\d+)? arguments?, but got \d+`)},
	{"js", Field, lazyre.New(`Property '(?P<name>[A-Za-z_$][\w$]*)' is missing in type '.*' but required in type '(?:[\w$.]*\.)?(?P<fn>[A-Za-z_$][\w$]*)`)}, // TS2741
	{"js", Field, lazyre.New(`is missing the following properties from type '(?:[\w$.]*\.)?(?P<fn>[A-Za-z_$][\w$]*)[^']*': (?P<name>[A-Za-z_$][\w$]*)`)},    // TS2739, TS2740

	// javac names the symbol on a line of its own, which a bare "cannot
	// find symbol" lacks.
	{"java", Name, lazyre.New(`cannot find symbol(?:\s*\n(?:\[ERROR\])?\s*symbol:\s+(?:class|variable|method|interface|enum|record|static)\s+(?P<name>[A-Za-z_$][\w$]*))?`)},
	{"java", Name, lazyre.New(`\b(?P<name>[A-Za-z_$][\w$]*) cannot be resolved(?: to a type)?\b`)}, // ecj
	{"java", Name, lazyre.New(`(?i:unresolved reference):? '?(?P<name>[A-Za-z_$][\w$]*)`)},         // kotlinc

	{"rust", Name, lazyre.New("cannot find (?:type|trait|function|value|struct|enum|module or crate|crate or module|macro|tuple struct or tuple variant|unit struct, unit variant or constant|attribute macro|derive macro)? ?`(?P<name>[A-Za-z_]\\w*)` in (?:this scope|crate|module)")},
	{"rust", Field, lazyre.New("missing fields? `(?P<name>[A-Za-z_]\\w*)`[^\\n]* in initializer of `(?:[\\w:]*::)?(?P<fn>[A-Za-z_]\\w*)")}, // E0063
	{"rust", Name, lazyre.New("use of undeclared (?:type|crate or module|type or module|lifetime name) `'?(?P<name>[A-Za-z_]\\w*)`")},
}

// Ask is what one report asks: a need and, when the message says, a name
// (and, for Example and Keyword, the example or the called function).
type Ask struct {
	Need Need
	Name string
	Fn   string
}

// Of reads a report's message (its first 2000 bytes). The first row that
// matches wins; ok is false when none does.
func Of(msg string) (a Ask, ok bool) {
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	for _, row := range reportTable {
		m := row.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		a := Ask{Need: row.need}
		if g := row.re.SubexpIndex("name"); g >= 0 {
			a.Name = m[g]
		}
		if g := row.re.SubexpIndex("fn"); g >= 0 {
			a.Fn = m[g]
		}
		return a, true
	}
	return Ask{}, false
}

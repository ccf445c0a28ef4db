package history

import (
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// need says what a report asks of the tier.
type need int

const (
	// needName: a name is not declared (a rename's old name).
	needName need = iota + 1
	// needArity: a call has the wrong number of arguments.
	needArity
	// needExample: a Go example's name refers to a name no longer
	// declared (go vet's tests analyzer); group "fn" is the example.
	needExample
	// needKeyword: a call passes a keyword argument the function no
	// longer takes; group "fn" is the function.
	needKeyword
)

// reportRow is one shape of message the tier acts on. The pattern's group
// "name", when present, is the name the message is about; a message
// without one (tsc's TS2554) applies to the calls on the reported line.
type reportRow struct {
	tool string
	need need
	re   *lazyre.Regexp
}

// q matches gcc's quotes, ASCII or typographic.
const q = `[‘'"]`
const eq = `[’'"]`

// reportTable lists the messages of missing names and wrong arities, one
// toolchain's wording per row.
var reportTable = []reportRow{
	{"go", needName, lazyre.New(`\bundefined: (?:[A-Za-z_]\w*\.)?(?P<name>[A-Za-z_]\w*)`)},
	{"go", needName, lazyre.New(`\bhas no field or method (?P<name>[A-Za-z_]\w*)`)},
	{"go", needExample, lazyre.New(`\b(?P<fn>Example\w*) refers to unknown (?:identifier: |field or method: [A-Za-z_]\w*\.)(?P<name>[A-Za-z_]\w*)`)},
	{"go", needArity, lazyre.New(`\b(?:not enough|too many) arguments in call to (?:[\w.()*]*\.)?(?P<name>[A-Za-z_]\w*)`)},

	{"cc", needName, lazyre.New(q + `(?P<name>[A-Za-z_]\w*)` + eq + ` undeclared`)},
	{"cc", needName, lazyre.New(`implicit declaration of function ` + q + `(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", needName, lazyre.New(`(?:use of undeclared identifier|call to undeclared function|unknown type name) ` + q + `(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", needName, lazyre.New(`has no member named ` + q + `(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", needArity, lazyre.New(`too (?:few|many) arguments to function ` + q + `(?:[\w:]*::)?(?P<name>[A-Za-z_]\w*)` + eq)},
	{"cc", needArity, lazyre.New(`too (?:few|many) arguments to function call`)},

	{"python", needName, lazyre.New(`NameError: name '(?P<name>[A-Za-z_]\w*)' is not defined`)},
	{"python", needName, lazyre.New(`AttributeError: .* has no attribute '(?P<name>[A-Za-z_]\w*)'`)},
	{"python", needName, lazyre.New(`ImportError: cannot import name '(?P<name>[A-Za-z_]\w*)'`)},
	{"python", needKeyword, lazyre.New(`TypeError: (?:[\w.<>]*\.)?(?P<fn>[A-Za-z_]\w*)\(\) got an unexpected keyword argument '(?P<name>[A-Za-z_]\w*)'`)},
	{"python", needArity, lazyre.New(`TypeError: (?:[\w.<>]*\.)?(?P<name>[A-Za-z_]\w*)\(\) (?:missing \d+ required (?:positional|keyword-only) arguments?|takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:was|were) given)`)},

	{"js", needName, lazyre.New(`(?:^|ReferenceError: )(?P<name>[A-Za-z_$][\w$]*) is not defined`)},
	{"js", needName, lazyre.New(`(?:^|TypeError: )(?:[\w$.]*\.)?(?P<name>[A-Za-z_$][\w$]*) is not a function`)},
	{"js", needName, lazyre.New(`Cannot find name '(?P<name>[A-Za-z_$][\w$]*)'`)},
	{"js", needName, lazyre.New(`Property '(?P<name>[A-Za-z_$][\w$]*)' does not exist on type`)},
	{"js", needName, lazyre.New(`does not provide an export named '(?P<name>[A-Za-z_$][\w$]*)'`)},
	{"js", needName, lazyre.New(`has no exported member (?:named )?'(?P<name>[A-Za-z_$][\w$]*)'`)},
	{"js", needArity, lazyre.New(`Expected (?:at least )?\d+(?:-\d+)? arguments?, but got \d+`)},
}

// ask is what one report asks: a need and, when the message says, a name
// (and, for needExample and needKeyword, the example or called function).
type ask struct {
	need need
	name string
	fn   string
}

// askOf reads a report's message. The first row that matches wins.
func askOf(r contract.BugReport) (ask, bool) {
	msg := r.Message
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	for _, row := range reportTable {
		m := row.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		a := ask{need: row.need}
		if g := row.re.SubexpIndex("name"); g >= 0 {
			a.name = m[g]
		}
		if g := row.re.SubexpIndex("fn"); g >= 0 {
			a.fn = m[g]
		}
		return a, true
	}
	return ask{}, false
}

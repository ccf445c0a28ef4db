package history

import (
	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/missing"
)

// need says what a report asks of the tier (package missing's kinds).
type need = missing.Need

const (
	needName    = missing.Name
	needArity   = missing.Arity
	needExample = missing.Example
	needKeyword = missing.Keyword
	needField   = missing.Field
)

// ask is what one report asks: a need and, when the message says, a name
// (and, for needExample and needKeyword, the example or called function).
type ask struct {
	need need
	name string
	fn   string
}

// askOf reads a report's message through the one table of report
// wordings (package missing).
func askOf(r contract.BugReport) (ask, bool) {
	a, ok := missing.Of(r.Message)
	return ask{need: a.Need, name: a.Name, fn: a.Fn}, ok
}

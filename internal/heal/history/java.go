package history

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// javaParams records, from a Java method or constructor whose parameter
// list changed with its length kept (r to a), each parameter the commit
// renamed with its type kept as a declared rename of kind "param": the
// body's uses the commit missed still name the old parameter.
func (ev *Evidence) javaParams(r, a decl, p string) {
	if r.name != a.name || len(r.params) != len(a.params) {
		return
	}
	for i := range r.params {
		old, typOld := javaParam(r.params[i])
		nw, typNew := javaParam(a.params[i])
		if old == "" || nw == "" || old == nw || typOld != typNew {
			continue
		}
		ev.rename(old, nw, true)
		ev.declaredIn(old, "param", p)
	}
}

// javaParam splits a Java parameter as normalised ("final long [ ] v",
// "int ... xs") into its name, the last token, and the rest, its type
// and modifiers.
func javaParam(norm string) (name, typ string) {
	fields := strings.Fields(norm)
	if len(fields) < 2 || !isName(fields[len(fields)-1]) {
		return "", ""
	}
	n := len(fields) - 1
	return fields[n], strings.Join(fields[:n], " ")
}

// reJavaSymbol reads the kind of what javac's "cannot find symbol" is
// about, from the "symbol:" line the report's message keeps.
var reJavaSymbol = lazyre.New(`(?m)^(?:\[ERROR\])?\s*symbol:\s+(class|interface|enum|record|variable|method)\s`)

// javaSymbolKind returns the kind javac names in a report's message
// ("class", "variable", "method"), "" when it names none.
func javaSymbolKind(msg string) string {
	if m := reJavaSymbol.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// javaFits lists, for each kind of symbol javac says it cannot find, the
// kinds of declaration (declTable's) that may declare it. A class used
// as a qualifier (FFT.multiply) is a "variable" to javac.
var javaFits = map[string][]string{
	"class":     {"class", "ctor"},
	"interface": {"class"},
	"enum":      {"class"},
	"record":    {"class", "ctor"},
	"method":    {"method"},
	"variable":  {"var", "param", "class"},
}

// kindsFit reports whether every kind of symbol the reports name fits
// every kind of declaration the commit renamed: javac's own words on
// what is missing agree with what the commit renamed.
func kindsFit(symbols, decls []string) bool {
	if len(symbols) == 0 || len(decls) == 0 {
		return false
	}
	for _, s := range symbols {
		for _, d := range decls {
			if !slices.Contains(javaFits[s], d) {
				return false
			}
		}
	}
	return true
}

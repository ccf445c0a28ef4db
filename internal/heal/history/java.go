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
	for _, rn := range renamedParams(r, a, javaParam) {
		ev.rename(rn[0], rn[1], true)
		ev.declaredIn(rn[0], "param", p)
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

// Bounds of inlinedParams: the removed lines and the removed methods it
// reads.
const (
	maxGone        = 4096
	maxGoneMethods = 16
)

// removedJava keeps a removed line of a Java file for inlinedParams.
func (ev *Evidence) removedJava(l *diffLine, p string) {
	if len(ev.gone) < maxGone {
		ev.gone = append(ev.gone, deferredPair{r: l, p: p})
	}
	if l.isDecl && l.decl.kind == "method" && len(l.decl.params) > 0 && len(ev.goneMethods) < maxGoneMethods {
		ev.goneMethods = append(ev.goneMethods, deferredPair{r: l, p: p})
	}
}

// inlinedParams records the parameters of a Java method the commit
// inlined into its caller: the method's declaration removed (and no
// declaration of its name added), and one call of it removed in the same
// file, passing a plain name for a parameter. The body the commit kept
// still names the parameter, where the caller's variable is now meant:
// the parameter is recorded as renamed to the argument (kind "param").
func (ev *Evidence) inlinedParams() {
	for _, m := range ev.goneMethods {
		d := m.r.decl
		if ev.Declared[d.name] {
			continue
		}
		var site *diffLine
		var args []span
		n := 0
		for _, g := range ev.gone {
			if g.p != m.p || g.r.isDecl || !strings.Contains(g.r.text, d.name) {
				continue
			}
			for _, c := range calls(mask(g.r.text, g.p), named(d.name)) {
				n++
				site, args = g.r, c.args
			}
		}
		if n != 1 || len(args) != len(d.params) {
			continue
		}
		for i, prm := range d.params {
			name, _ := javaParam(prm)
			arg := strings.TrimSpace(site.text[args[i].start:args[i].end])
			if name == "" || !isName(arg) || arg == name {
				continue
			}
			ev.rename(name, arg, true)
			ev.declaredIn(name, "param", m.p)
		}
	}
	ev.gone, ev.goneMethods = nil, nil
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

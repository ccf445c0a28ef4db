package integrity

import (
	"strings"

	"github.com/salve-dev/salve/internal/heal/missing"
)

// literalNames are identifiers that stand for a value: renaming a missing
// name to one of them changes what a test checks, not what it calls.
var literalNames = map[string]bool{"nil": true, "true": true, "false": true, "iota": true, "None": true, "True": true,
	"False": true, "null": true, "undefined": true, "NULL": true, "NaN": true, "Infinity": true, "this": true, "self": true}

// renameLine reports whether line n changed from a to b only by renaming
// identifiers a report on that line says are not declared (a test that
// stopped compiling after a rename elsewhere): each changed identifier is
// a reported name, or a Go example named after one (ExampleOld_suffix),
// and becomes another identifier that is not a literal value. Such a fix
// makes the test compile again and checks what it checked. Only a fix
// that renames as the breaking commit did (Input.RenamesFromCommit) may.
func (c *checker) renameLine(n int, a, b string) bool {
	if !c.in.RenamesFromCommit {
		return false
	}
	names := map[string]bool{}
	for _, r := range c.in.Reports {
		if r.LineNumber != n {
			continue
		}
		// The names the history tier renames: package missing's reading
		// of the report, the one table of toolchain wordings.
		if ask, ok := missing.Of(r.Message); ok && ask.Need != missing.Arity && ask.Need != missing.Field && ask.Name != "" {
			names[ask.Name] = true
		}
	}
	if len(names) == 0 {
		return false
	}
	ta, tb := identRuns(a), identRuns(b)
	if len(ta) != len(tb) {
		return false
	}
	changed := false
	for i := range ta {
		x, y := ta[i], tb[i]
		if x == y {
			continue
		}
		if !isIdentRun(x) || !isIdentRun(y) || literalNames[y] || !names[x] && !exampleOf(x, names) {
			return false
		}
		changed = true
	}
	return changed
}

// exampleOf reports whether fn is a Go example named after one of names:
// Example, then "_"-separated parts of which one is the name.
func exampleOf(fn string, names map[string]bool) bool {
	rest, ok := strings.CutPrefix(fn, "Example")
	if !ok {
		return false
	}
	for _, p := range strings.Split(rest, "_") {
		if names[p] {
			return true
		}
	}
	return false
}

// identRuns splits s into runs of identifier bytes and single other bytes.
func identRuns(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j == i {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// isIdentRun reports whether s, a run of identRuns, is an identifier.
func isIdentRun(s string) bool {
	return s != "" && isWordByte(s[0]) && (s[0] < '0' || s[0] > '9')
}

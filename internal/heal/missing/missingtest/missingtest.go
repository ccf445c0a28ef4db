// Package missingtest holds the patterns other packages read a missing
// name with to package missing, the one table of those wordings. A tier
// or parser that reads such a wording with a pattern of its own (for
// more than the name: a qualifier, a type, the name a tool proposes)
// lists each pattern with messages it reads in a test that calls Hold; a
// test in internal/housetest finds a pattern no such test names.
package missingtest

import (
	"testing"

	"github.com/salve-dev/salve/internal/heal/missing"
)

// Pattern is a compiled regular expression (regexp or lazyre).
type Pattern interface {
	FindStringSubmatch(s string) []string
}

// Case is one pattern of a package and messages it reads.
type Case struct {
	// Name is the pattern's name in its package, for the failures.
	Name string
	Re   Pattern
	// Group is the submatch that holds the missing name: 0 when the
	// pattern reads no name (it only recognises the wording), -1 for the
	// last submatch that matched (an alternation of wordings).
	Group int
	Msgs  []string
}

// Hold fails t unless every message of every case is read by its pattern,
// and by missing.Of as a missing name: the same name when the pattern
// reads one. A wording read here and not there fails; so does a message
// the pattern no longer reads (drop it from the case).
func Hold(t testing.TB, cases []Case) {
	t.Helper()
	for _, c := range cases {
		if len(c.Msgs) == 0 {
			t.Errorf("%s: no message: a pattern is held by the messages it reads", c.Name)
		}
		for _, msg := range c.Msgs {
			m := c.Re.FindStringSubmatch(msg)
			if m == nil {
				t.Errorf("%s no longer reads %q: drop it from the case", c.Name, msg)
				continue
			}
			name := ""
			switch {
			case c.Group > 0 && c.Group < len(m):
				name = m[c.Group]
			case c.Group < 0:
				for _, g := range m[1:] {
					if g != "" {
						name = g
					}
				}
			}
			a, ok := missing.Of(msg)
			if !ok || a.Need != missing.Name || c.Group != 0 && a.Name != name {
				t.Errorf("%s reads %q as the missing name %q, but missing.Of gives %+v, %v: add the wording to package missing's table", c.Name, msg, name, a, ok)
			}
		}
	}
}

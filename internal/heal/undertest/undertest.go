// Package undertest names the code a failing test exercises: a Region of
// a non-test source file (docs/heal.md, "The code under test"). The heal
// core's TargetFinder port returns regions and package
// internal/heal/target finds them; the one type lives here, in a leaf of
// the standard library, so that neither links the other: the core must
// not link the resolver (which runs programs through the sandbox), and
// the resolver has no use for the pipeline.
package undertest

import "fmt"

// Region is a span of a non-test source file that a failing test
// exercises.
type Region struct {
	// Path is repo-relative, with forward slashes, symlinks resolved; never
	// a test file.
	Path string
	// Start and End are 1-based inclusive lines: the whole function or
	// method declaration (with its doc comment excluded, its decorators
	// included).
	Start, End int
	// Symbol names the declaration: "calc.Add" or "calc.(*Stack).Push" for
	// Go, "calc.ops.add" or "calc.ops.Calc.add" for Python, "Calc.add" for
	// a Java or TypeScript method, "Rect::area" for a C++ one,
	// "fees::transfer_fee" or "account::Account::new" for Rust (the module
	// path in its crate), the bare name otherwise; empty when no
	// declaration was found.
	Symbol string
	// Why says how the region was found: "report location", "stack frame",
	// "called by TestAdd", "called by TestAdd through check"; a lexical
	// fallback says so in parentheses.
	Why string
	// Reached marks a function the code under test calls in turn,
	// directly or through others of its package, rather than one the test
	// itself calls: a fix may change it too. Reached regions follow the
	// others.
	Reached bool
}

// String renders r as path:start-end symbol (why).
func (r Region) String() string {
	return fmt.Sprintf("%s:%d-%d %s (%s)", r.Path, r.Start, r.End, r.Symbol, r.Why)
}

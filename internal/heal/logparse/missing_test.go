package logparse

import (
	"fmt"
	"testing"

	"github.com/salve-dev/salve/internal/heal/missing/missingtest"
)

// TestMissingNameWordingsHaveOneHome: every pattern by which the parser
// reads that a name is missing (a "did you mean", javac's missing
// symbols, the classification of a compiler's message) is held to package
// internal/heal/missing, the one table of those wordings, with the same
// name. The parser imports only contract, lazyre and ansi, so it keeps
// its patterns, which read more than the name; this test keeps them from
// knowing a wording the table does not. Every row of didYouMean needs
// messages here.
func TestMissingNameWordingsHaveOneHome(t *testing.T) {
	didYouMeanMsgs := [][]string{
		{"NameError: name 'totl' is not defined. Did you mean: 'total'?"},
		{"AttributeError: module 'math' has no attribute 'sqr'. Did you mean: 'sqrt'?", "AttributeError: 'Calc' object has no attribute 'totl'. Did you mean: 'total'?"},
		{"ImportError: cannot import name 'lod' from 'json' (/usr/lib/python3.12/json/__init__.py). Did you mean: 'load'?"},
		{"Cannot find name 'totl'. Did you mean 'total'?"},
		{"Property 'lenght' does not exist on type 'string[]'. Did you mean 'length'?"},
		{`Module '"./calc"' has no exported member named 'ad'. Did you mean 'add'?`},
		{"c.totl undefined (type *Calc has no field or method totl, but does have field Totl)"},
		{"‘totl’ undeclared (first use in this function); did you mean ‘total’?", "'totl' was not declared in this scope; did you mean 'total'?"},
		{"use of undeclared identifier 'totl'; did you mean 'total'?", "unknown type name 'sizet'; did you mean 'size_t'?", "implicit declaration of function 'prinf'; did you mean 'printf'?", "no member named 'lenght' in 'struct buf'; did you mean 'length'?"},
		{"‘struct buf’ has no member named ‘lenght’; did you mean ‘length’?"},
		{"'vectr' is not a member of 'std'; did you mean 'vector'?", "'sizee' has not been declared; did you mean 'size'?"},
	}
	if len(didYouMeanMsgs) != len(didYouMean) {
		t.Fatalf("didYouMean has %d rows and this test messages for %d: give each row its messages", len(didYouMean), len(didYouMeanMsgs))
	}
	var cases []missingtest.Case
	for i, row := range didYouMean {
		cases = append(cases, missingtest.Case{Name: fmt.Sprintf("didYouMean[%d] (%s)", i, row.tool), Re: row.re, Group: 1, Msgs: didYouMeanMsgs[i]})
	}
	cases = append(cases,
		missingtest.Case{Name: "reJSUndef", Re: reJSUndef, Msgs: []string{"totl is not defined"}},
		missingtest.Case{Name: "reGoCompile", Re: reGoCompile, Msgs: []string{"undefined: totl", "c.totl undefined (type *Calc has no field or method totl)"}},
		missingtest.Case{Name: "reRustSemantic", Re: reRustSemantic, Msgs: []string{"cannot find value `totl` in this scope", "failed to resolve: use of undeclared type `HashMapp`"}},
		missingtest.Case{Name: "reJavacHead", Re: reJavacHead, Msgs: []string{"src/app/Calc.java:14: error: cannot find symbol\n        return totl;\n  symbol:   variable totl"}},
		missingtest.Case{Name: "reMavenHead", Re: reMavenHead, Msgs: []string{"src/app/Calc.java:[14,13] cannot find symbol\n[ERROR]   symbol:   variable totl"}},
	)
	missingtest.Hold(t, cases)
}

// TestJavacMessageNamesItsSymbol: javac names the missing symbol on a
// "symbol:" line under the caret; the report's message keeps that line
// (and "location:"), so that a reader of the message learns which name,
// of what kind, is missing, and two errors on one line differ by more
// than their column.
func TestJavacMessageNamesItsSymbol(t *testing.T) {
	log := "src/app/Calc.java:14: error: cannot find symbol\n" +
		"        return totl + Helper.twice(x);\n" +
		"               ^\n" +
		"  symbol:   variable totl\n" +
		"  location: class Calc\n" +
		"src/app/Calc.java:14: error: cannot find symbol\n" +
		"        return totl + Helper.twice(x);\n" +
		"                            ^\n" +
		"  symbol:   method twice(int)\n" +
		"  location: class Helper\n" +
		"2 errors\n"
	got := ParseString(log, Options{})
	want := []string{
		"cannot find symbol\n  symbol:   variable totl\n  location: class Calc",
		"cannot find symbol\n  symbol:   method twice(int)\n  location: class Helper",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d reports, want %d: %v", len(got), len(want), got)
	}
	for i, r := range got {
		if r.Message != want[i] {
			t.Errorf("report %d: message %q, want %q", i, r.Message, want[i])
		}
		if r.String() != "src/app/Calc.java:14:"+[]string{"16", "29"}[i]+": TYPE_ERROR cannot find symbol [javac]" {
			t.Errorf("report %d: one line %q", i, r.String())
		}
	}
	// Maven prints the lines indented, then again after "[ERROR]" in its
	// recap: one report, the same message.
	maven := "[ERROR] /w/src/app/Calc.java:[14,16] cannot find symbol\n" +
		"  symbol:   variable totl\n" +
		"  location: class app.Calc\n" +
		"[INFO] 1 error\n" +
		"[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure\n" +
		"[ERROR] /w/src/app/Calc.java:[14,16] cannot find symbol\n" +
		"[ERROR]   symbol:   variable totl\n" +
		"[ERROR]   location: class app.Calc\n"
	got = ParseString(maven, Options{Root: "/w"})
	if len(got) != 1 || got[0].Message != "cannot find symbol\n  symbol:   variable totl\n  location: class app.Calc" {
		t.Errorf("maven: %q", got)
	}
}

package logparse

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestDuplicates holds the rule for several reports on one line: every
// distinct error is kept, and an error a log prints more than once is
// reported once. Each report is rendered as file:line:col TYPE message.
func TestDuplicates(t *testing.T) {
	javacTwo := "src/A.java:5: error: cannot find symbol\n" +
		"        return price * qty + shipping;\n" +
		"                       ^\n" +
		"  symbol:   variable qty\n" +
		"  location: class A\n" +
		"src/A.java:5: error: cannot find symbol\n" +
		"        return price * qty + shipping;\n" +
		"                             ^\n" +
		"  symbol:   variable shipping\n" +
		"  location: class A\n"
	cases := []struct {
		name, log string
		want      []string
	}{
		{"go: two undefined names on one line", "./main.go:7:9: undefined: strings\n./main.go:7:25: undefined: strconv\n",
			[]string{"main.go:7:9 TYPE_ERROR undefined: strings", "main.go:7:25 TYPE_ERROR undefined: strconv"}},
		{"go: vet, build and test print the same errors", "# m\nvet: ./main.go:7:9: undefined: strings\n" +
			"# m\n./main.go:7:9: undefined: strings\n./main.go:7:25: undefined: strconv\n" +
			"# m [m.test]\n./main.go:7:9: undefined: strings\n./main.go:7:25: undefined: strconv\nFAIL\tm [build failed]\n",
			[]string{"main.go:7:9 TYPE_ERROR undefined: strings", "main.go:7:25 TYPE_ERROR undefined: strconv"}},
		{"gcc: the same error with and without its column is one", "a.c:4:21: error: 'count' undeclared (first use in this function)\n" +
			"a.c:4: error: 'count' undeclared (first use in this function)\n",
			[]string{"a.c:4:21 TYPE_ERROR 'count' undeclared (first use in this function)"}},
		{"gcc: the same message at two columns is two errors", "a.sh:4:8: note: Double quote to prevent globbing and word splitting. [SC2086]\n" +
			"a.sh:4:14: note: Double quote to prevent globbing and word splitting. [SC2086]\n",
			[]string{"a.sh:4:8 LINTING Double quote to prevent globbing and word splitting.", "a.sh:4:14 LINTING Double quote to prevent globbing and word splitting."}},
		{"javac: two cannot find symbol on one line, told apart by their carets", javacTwo + "2 errors\n",
			[]string{"src/A.java:5:24 TYPE_ERROR cannot find symbol\n  symbol:   variable qty\n  location: class A", "src/A.java:5:30 TYPE_ERROR cannot find symbol\n  symbol:   variable shipping\n  location: class A"}},
		{"javac: the same compilation twice in one log", javacTwo + "2 errors\n" + javacTwo + "2 errors\n",
			[]string{"src/A.java:5:24 TYPE_ERROR cannot find symbol\n  symbol:   variable qty\n  location: class A", "src/A.java:5:30 TYPE_ERROR cannot find symbol\n  symbol:   variable shipping\n  location: class A"}},
		{"javac: a diagnostic without its source line does not hide the next one", "src/A.java:5: error: cannot find symbol\nsrc/A.java:6: error: ';' expected\n",
			[]string{"src/A.java:5 TYPE_ERROR cannot find symbol", "src/A.java:6 SYNTAX ';' expected"}},
		{"javac: a diagnostic at the end of the log", "src/A.java:5: error: cannot find symbol\n        int x = y;\n                ^",
			[]string{"src/A.java:5:17 TYPE_ERROR cannot find symbol"}},
		{"javac: -Werror warnings get their carets' columns", "Old.java:9: warning: [rawtypes] found raw type: List\n" +
			"        List raw = new ArrayList();\n        ^\n  missing type arguments for generic class List<E>\n" +
			"Old.java:9: warning: [rawtypes] found raw type: List\n" +
			"        List raw = new List();\n                       ^\n" +
			"error: warnings found and -Werror specified\n1 error\n2 warnings\n",
			[]string{"Old.java:9:9 LINTING [rawtypes] found raw type: List", "Old.java:9:24 LINTING [rawtypes] found raw type: List"}},
		{"tsc: two TS2304 on one line", "src/t.ts(2,18): error TS2304: Cannot find name 'quantity'.\nsrc/t.ts(2,29): error TS2304: Cannot find name 'shipping'.\n",
			[]string{"src/t.ts:2:18 TYPE_ERROR Cannot find name 'quantity'.", "src/t.ts:2:29 TYPE_ERROR Cannot find name 'shipping'."}},
		{"rustc: a second cargo run prints the same errors", strings.Repeat("error[E0425]: cannot find value `q` in this scope\n --> src/main.rs:2:13\n  |\n\n"+
			"error: could not compile `shop` (bin \"shop\") due to 1 previous error\n", 2),
			[]string{"src/main.rs:2:13 TYPE_ERROR cannot find value `q` in this scope"}},
		{"bash: the quoted source line after a syntax error is not an error", "run.sh: line 5: syntax error near unexpected token `fi'\nrun.sh: line 5: `fi fi'\n",
			[]string{"run.sh:5 SYNTAX syntax error near unexpected token `fi'"}},
		{"one error, two types: both kept", "a.c:4:21: error: 'count' undeclared (first use in this function)\n" +
			"a.c:4:21: error: 'count' undeclared (first use in this function) [-Werror]\n",
			[]string{"a.c:4:21 TYPE_ERROR 'count' undeclared (first use in this function)", "a.c:4:21 LINTING 'count' undeclared (first use in this function) [-Werror]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseString(tc.log, Options{})
			checkValid(t, got)
			var lines []string
			for _, r := range got {
				l := r.FilePath + ":" + itoa(r.LineNumber)
				if r.Column > 0 {
					l += ":" + itoa(r.Column)
				}
				lines = append(lines, l+" "+string(r.ErrorType)+" "+r.Message)
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(lines, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestDuplicateKeepsTestName: a repeat that names the failing test gives
// its name to the first report, which had none.
func TestDuplicateKeepsTestName(t *testing.T) {
	out := []contract.BugReport{{FilePath: "a.go", LineNumber: 3, ErrorType: contract.ErrLogic, Message: "boom"}}
	name := "TestA"
	out = append(out, contract.BugReport{FilePath: "a.go", LineNumber: 3, ErrorType: contract.ErrLogic, Message: "boom ", TestName: &name})
	got, ps := dedupe(out)
	if len(got) != 1 || got[0].TestName == nil || *got[0].TestName != "TestA" || len(ps.more) != 0 {
		t.Fatalf("dedupe = %+v, %v; want one report named TestA", got, ps)
	}
}

// TestCompareCountsEachReport: a place with two expected errors wants two
// reports; types are paired before a wrong type is counted.
func TestCompareCountsEachReport(t *testing.T) {
	rep := func(typ contract.ErrorType) contract.BugReport {
		return contract.BugReport{FilePath: "a.go", LineNumber: 7, ErrorType: typ}
	}
	want := []Expected{{FilePath: "a.go", LineNumber: 7, ErrorType: contract.ErrTypeError}, {FilePath: "a.go", LineNumber: 7, ErrorType: contract.ErrImport}}
	cases := []struct {
		name                  string
		got                   []contract.BugReport
		hits, typeOK          int
		missed, extra, wrongT int
	}{
		{"both", []contract.BugReport{rep(contract.ErrImport), rep(contract.ErrTypeError)}, 2, 2, 0, 0, 0},
		{"one of two", []contract.BugReport{rep(contract.ErrImport)}, 1, 1, 1, 0, 0},
		{"one too many", []contract.BugReport{rep(contract.ErrImport), rep(contract.ErrTypeError), rep(contract.ErrTypeError)}, 2, 2, 0, 1, 0},
		{"a wrong type", []contract.BugReport{rep(contract.ErrTypeError), rep(contract.ErrLogic)}, 2, 1, 0, 0, 1},
	}
	for _, tc := range cases {
		cs := Compare(CaseMeta{}, want, tc.got)
		if cs.Hits != tc.hits || cs.TypeOK != tc.typeOK || len(cs.Missed) != tc.missed || len(cs.Extra) != tc.extra || len(cs.WrongType) != tc.wrongT {
			t.Errorf("%s: %+v", tc.name, cs)
		}
		if exact := tc.missed+tc.extra+tc.wrongT == 0; cs.Exact != exact || cs.Expected != 2 || cs.Found != len(tc.got) {
			t.Errorf("%s: exact %v expected %d found %d", tc.name, cs.Exact, cs.Expected, cs.Found)
		}
	}
}

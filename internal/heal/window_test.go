package heal

import (
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestGateFunctionWindow checks the window of a failing test's fix: the
// body of the code under test, not the lines around its first line; an
// import and a new private helper that only the window calls may sit
// outside it.
func TestGateFunctionWindow(t *testing.T) {
	goSrc := `// Package calc does arithmetic.
package calc

import "math"

// Tolerance is how close two floats must be to count as equal.
const Tolerance = 1e-9

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Root returns the square root of x.
func Root(x float64) float64 {
	return math.Sqrt(x)
}
`
	pySrc := "\"\"\"Prices.\"\"\"\n\nRATE = 0.2\n\n\ndef gross(net):\n    return net * RATE\n\n\ndef other():\n    return 1\n"
	// The failing test's report, restated at Add's first line (10).
	goAt := []contract.BugReport{{FilePath: "calc.go", LineNumber: 10, ErrorType: contract.ErrLogic, Message: "Add(2, 3) = -1, want 5"}}
	goWin := []LineRange{{Start: 10, End: 12}}
	pyAt := []contract.BugReport{{FilePath: "prices.py", LineNumber: 6, ErrorType: contract.ErrLogic, Message: "assert 12.0 == 120.0"}}
	pyWin := []LineRange{{Start: 6, End: 7}}
	for _, tc := range []struct {
		name, path, orig, patched string
		reports                   []contract.BugReport
		windows                   []LineRange
		want                      []string
	}{
		{"the body", "calc.go", goSrc, strings.Replace(goSrc, "a - b", "a + b", 1), goAt, goWin, nil},
		{"a constant just above the function", "calc.go", goSrc, strings.Replace(goSrc, "1e-9", "1e-1", 1), goAt, goWin, []string{"outside-window"}},
		{"a new init after the function", "calc.go", goSrc, strings.Replace(goSrc, "return a - b\n}\n", "return a - b\n}\n\nfunc init() { println() }\n", 1), goAt, goWin, []string{"outside-window", "package-side-effect"}},
		{"the doc comment line above", "calc.go", goSrc, strings.Replace(goSrc, "// Add returns the sum of a and b.\n", "// Add returns the sum of a and b.\nvar _ = 1\n", 1), goAt, goWin, []string{"outside-window"}},
		{"another function", "calc.go", goSrc, strings.Replace(goSrc, "math.Sqrt(x)", "math.Sqrt(x) + 0", 1), goAt, goWin, []string{"outside-window"}},
		{"an import", "calc.go", goSrc, strings.Replace(strings.Replace(goSrc, `import "math"`, "import (\n\t\"math\"\n\t\"math/bits\"\n)", 1), "return a - b", "s, _ := bits.Add(uint(a), uint(b), 0)\n\treturn int(s)", 1), goAt, goWin, nil},
		{"a private helper only the body calls", "calc.go", goSrc, strings.Replace(goSrc, "\treturn a - b\n}\n", "\treturn sum(a, b)\n}\n\n// sum adds two ints.\nfunc sum(a, b int) int {\n\treturn a + b\n}\n", 1), goAt, goWin, nil},
		{"an exported helper", "calc.go", goSrc, strings.Replace(goSrc, "\treturn a - b\n}\n", "\treturn Sum(a, b)\n}\n\n// Sum adds two ints.\nfunc Sum(a, b int) int {\n\treturn a + b\n}\n", 1), goAt, goWin, []string{"outside-window"}},
		{"a helper another function calls", "calc.go", goSrc, strings.Replace(strings.Replace(goSrc, "\treturn a - b\n}\n", "\treturn sum(a, b)\n}\n\nfunc sum(a, b int) int {\n\treturn a + b\n}\n", 1), "math.Sqrt(x)", "math.Sqrt(x + float64(sum(0, 0)))", 1), goAt, goWin, []string{"outside-window"}},
		{"a helper nobody calls", "calc.go", goSrc, strings.Replace(goSrc, "\treturn a - b\n}\n", "\treturn a + b\n}\n\nfunc sum(a, b int) int {\n\treturn a + b\n}\n", 1), goAt, goWin, []string{"outside-window"}},
		{"a final blank line", "calc.go", goSrc, strings.Replace(goSrc, "a - b", "a + b", 1) + "\n", goAt, goWin, nil},
		{"blank lines elsewhere", "calc.go", goSrc, strings.Replace(goSrc, "// Root returns", "\n// Root returns", 1), goAt, goWin, []string{"outside-window"}},
		{"python body", "prices.py", pySrc, strings.Replace(pySrc, "net * RATE", "net * (1 + RATE)", 1), pyAt, pyWin, nil},
		{"python module constant", "prices.py", pySrc, strings.Replace(pySrc, "RATE = 0.2", "RATE = 99", 1), pyAt, pyWin, []string{"outside-window"}},
		{"python helper", "prices.py", pySrc, strings.Replace(pySrc, "    return net * RATE\n", "    return _with_rate(net)\n\n\ndef _with_rate(net):\n    return net * (1 + RATE)\n", 1), pyAt, pyWin, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Gate(GateInput{Path: tc.path, Original: tc.orig, Patched: tc.patched, Reports: tc.reports, Windows: tc.windows, OnlyWindows: true, Confidence: 0.9, MinConfidence: 0.7})
			if !slices.Equal(d.Rules, tc.want) {
				t.Fatalf("rules %q, want %q\n%s\n%s", d.Rules, tc.want, d.Reason(), d.Diff)
			}
		})
	}
}

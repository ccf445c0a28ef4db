package logparse_test

import (
	"fmt"

	"github.com/salve-dev/salve/internal/heal/logparse"
)

func ExampleParseString() {
	log := `2026-11-23T03:00:00.0000000Z ##[group]Run go test ./...
--- FAIL: TestAdd (0.00s)
    calc_test.go:7: Add(2, 3) = -1, want 5
FAIL
FAIL	example.com/app/calc	0.004s
/home/runner/work/app/app/lib/stats.py:3: error: Incompatible return value type (got "str", expected "int")  [return-value]
`
	for _, r := range logparse.ParseString(log, logparse.Options{}) {
		fmt.Println(r.String(), *r.ConfidenceScore)
	}
	// Output:
	// calc/calc_test.go:7: LOGIC Add(2, 3) = -1, want 5 [go test] (test TestAdd) 0.9
	// lib/stats.py:3: TYPE_ERROR Incompatible return value type (got "str", expected "int") [mypy return-value] 0.9
}

package rules

import (
	"context"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestFixPyColon(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"for", "def f(xs):\n    for x in xs\n        print(x)\n", 2, "def f(xs):\n    for x in xs:\n        print(x)\n"},
		{"comment kept after", "if a == '#'  # check\n    pass\n", 1, "if a == '#':  # check\n    pass\n"},
		{"else", "if a:\n    pass\nelse\n    pass\n", 3, "if a:\n    pass\nelse:\n    pass\n"},
		{"a semicolon for the colon", "def add(a, b);  # sum\n    return a + b\n", 1, "def add(a, b):  # sum\n    return a + b\n"},
		{"not a compound statement", "x = 1\n", 1, ""},
		{"open bracket", "if (a and\n        b)\n", 1, ""},
		{"already there", "while True:\n    pass\n", 1, ""},
	} {
		in := ruleInput{path: "m.py", content: tc.src, reports: []contract.BugReport{{FilePath: "m.py", LineNumber: tc.line, ErrorType: contract.ErrSyntax, Message: "SyntaxError: expected ':'"}}}
		e, ok, err := fixPyColon(context.Background(), nil, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := map[bool]string{true: e.content, false: ""}[ok]; got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

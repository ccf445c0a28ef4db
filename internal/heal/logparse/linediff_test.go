package logparse

import (
	"reflect"
	"strings"
	"testing"
)

func TestDiffSpans(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		want       []span
	}{
		{"same", "a\nb\nc", "a\nb\nc", nil},
		{"one changed", "a\nb\nc\nd", "a\nB\nc\nd", []span{{2, 2}}},
		{"two runs", "a\nb\nc\nd\ne", "A\nb\nc\nD\ne", []span{{1, 1}, {4, 4}}},
		{"insertion", "a\nb\nc", "a\nb\nx\nc", []span{{3, 2}}},
		{"deletion", "a\nb\nc\nd", "a\nd", []span{{2, 3}}},
		{"replace then insert", "a\nb\nc", "a\nB\nB2\nc", []span{{2, 2}}},
		{"insert at top", "a\nb", "x\na\nb", []span{{1, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := diffSpans(strings.Split(tc.a, "\n"), strings.Split(tc.b, "\n"))
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("diffSpans = %v, %v; want %v", got, ok, tc.want)
			}
		})
	}
}

func TestSpanReportLine(t *testing.T) {
	for _, tc := range []struct {
		s    span
		want int
	}{{span{5, 5}, 5}, {span{8, 14}, 11}, {span{3, 2}, 2}, {span{1, 0}, 1}} {
		if got := tc.s.reportLine(); got != tc.want {
			t.Errorf("%v.reportLine() = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestGofmtListing checks what a bare listing needs: a line naming gofmt
// before it, and, without a workspace, line 1.
func TestGofmtListing(t *testing.T) {
	for _, tc := range []struct{ name, log, want string }{
		{"after a marker", "$ test -z \"$(gofmt -l .)\" || { gofmt -l .; exit 1; }\nkv.go\nsub/x.go\n",
			"kv.go:1: LINTING gofmt would reformat this file [gofmt gofmt]\nsub/x.go:1: LINTING gofmt would reformat this file [gofmt gofmt]\n"},
		{"goimports", "goimports -l found:\n./a.go\n", "a.go:1: LINTING goimports would reformat this file [goimports goimports]\n"},
		{"no marker", "kv.go\nsub/x.go\n", ""},
		{"marker ended", "gofmt -l .\nok, nothing to do\nkv.go\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := renderText(ParseString(tc.log, Options{})); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestVetAnalyzer(t *testing.T) {
	for msg, want := range map[string]string{
		"fmt.Sprintf format %d has arg x of wrong type string":                              "printf",
		"(*testing.common).Errorf call needs 1 arg but has 2 args":                          "printf",
		"ExampleFoo refers to unknown identifier: Foo":                                      "tests",
		"Testfoo has malformed name: first letter after 'Test' must not be lowercase":       "tests",
		"assignment copies lock value to x: sync.Mutex":                                     "copylocks",
		"result of fmt.Errorf call not used":                                                "unusedresult",
		"comparison of function F == nil is always false":                                   "nilfunc",
		"conversion from int to string yields a string of one rune, not a string of digits": "stringintconv",
		"undefined: foo":          "",
		"x declared and not used": "",
		"cannot use x (variable of type int) as string value in argument to f": "",
	} {
		if got := VetAnalyzer(msg); got != want {
			t.Errorf("VetAnalyzer(%q) = %q, want %q", msg, got, want)
		}
	}
}

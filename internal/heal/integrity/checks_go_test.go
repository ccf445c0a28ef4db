package integrity

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

const goCheckTest = `package calc

import (
	"fmt"
	"testing"
)

var cases = []struct{ a, b, want int }{{1, 2, 3}, {2, 2, 4}}

func TestAdd(t *testing.T) {
	unused := 5
	var spare int
	got := Add(1)
	fmt.Println("checking\n")
	v, err := parse("x")
	if got != 3 {
		t.Errorf("Add = %d, want 3", got)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if Add(c.a, c.b) != c.want {
			t.Errorf("bad %v", c)
		}
	}
}

// ExampleAdd shows a sum.
func ExampleAdd() {
	fmt.Println(Add(1, 2))
	// Output: 3
}
`

// TestGoChecksKept: a test file's edit is proven to keep its checks when
// it removes dead declarations, silences unused results, or changes the
// arguments of a non-check call on a line a report names; any change of a
// check, an expected value, a case, a comment or a test is no proof.
func TestGoChecksKept(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(goCheckTest, old) {
			t.Fatalf("the test file has no %q", old)
		}
		return strings.Replace(goCheckTest, old, new, 1)
	}
	for _, tc := range []struct {
		name     string
		patched  string
		reported []int
		kept     bool
	}{
		{"unchanged", goCheckTest, nil, true},
		{"dead declaration removed", edit("\tunused := 5\n", ""), []int{11}, true},
		{"dead var removed", edit("\tvar spare int\n", ""), []int{12}, true},
		{"unused result silenced", edit("v, err := parse", "_, err := parse"), []int{15}, true},
		{"import removed", edit("\t\"fmt\"\n", ""), nil, true}, // imports follow the code; the build judges them
		{"call given the argument it lacks", edit("got := Add(1)", "got := Add(1, 2)"), []int{13}, true},
		{"argument changed on no reported line", edit("got := Add(1)", "got := Add(1, 2)"), nil, false},
		{"redundant newline removed", edit(`"checking\n"`, `"checking"`), []int{14}, true},
		{"expected value changed", edit("if got != 3", "if got != 4"), []int{16}, false},
		{"check message changed", edit(`"Add = %d, want 3"`, `"Add = %d"`), []int{17}, false},
		{"check removed", edit("\tif got != 3 {\n\t\tt.Errorf(\"Add = %d, want 3\", got)\n\t}\n", ""), []int{16}, false},
		{"fatal made an error", edit("t.Fatal(err)", "t.Error(err)"), []int{20}, false},
		{"skip added", edit("\tunused := 5\n", "\tt.Skip()\n"), []int{11}, false},
		{"case changed", edit("{2, 2, 4}", "{2, 2, 5}"), nil, false},
		{"case removed", edit(", {2, 2, 4}", ""), nil, false},
		{"example output changed", edit("// Output: 3", "// Output: 4"), nil, false},
		{"comment added", edit("\tgot := Add(1)", "\t// why\n\tgot := Add(1)"), nil, false},
		{"test renamed", edit("func TestAdd(", "func testAdd("), nil, false},
		{"live variable removed", edit("\tgot := Add(1)\n", ""), []int{13}, false},
		{"input of a dead call changed", edit(`parse("x")`, `parse("y")`), nil, false},
		{"does not parse", edit("func TestAdd(", "func TestAdd(("), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reported := map[int]bool{}
			for _, l := range tc.reported {
				reported[l] = true
			}
			if got := goChecksKept(goCheckTest, tc.patched, reported); got != tc.kept {
				t.Errorf("goChecksKept = %v, want %v", got, tc.kept)
			}
		})
	}
	// A blank import runs code of its own: removing one is no proof.
	hooked := strings.Replace(goCheckTest, "\t\"testing\"\n", "\t\"testing\"\n\n\t_ \"example.com/hooks\"\n", 1)
	if goChecksKept(hooked, goCheckTest, nil) {
		t.Error("removing a blank import keeps the checks")
	}
}

// TestChecksKeptOnlyForArgumentReports: the proof lets a call's
// arguments change only on a line whose report asks for other arguments
// (the compiler's arity error, a go vet print finding); a panic or a
// failure reported on the same call's line leaves the test's input closed.
func TestChecksKeptOnlyForArgumentReports(t *testing.T) {
	patched := strings.Replace(goCheckTest, "got := Add(1)", "got := Add(1, 2)", 1)
	for _, tc := range []struct {
		name, msg string
		refused   bool
	}{
		{"arity", "not enough arguments in call to Add\n\thave (number)\n\twant (int, int)", false},
		{"panic on the call's line", "panic: runtime error: index out of range [1] with length 1", true},
		{"failure on the call's line", "calc_test.go:13: Add(1) = 1, want 3", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := Check(Input{Path: "calc/calc_test.go", Original: goCheckTest, Patched: patched,
				Reports: []contract.BugReport{{FilePath: "calc/calc_test.go", LineNumber: 13, Message: tc.msg}}})
			got := false
			for _, v := range vs {
				got = got || v.Rule == RuleTestFile
			}
			if got != tc.refused {
				t.Errorf("test-file refused %v, want %v: %+v", got, tc.refused, vs)
			}
		})
	}
}

package heal

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestJudge(t *testing.T) {
	rep := func(file string, line int, typ, msg string) contract.BugReport {
		return contract.BugReport{FilePath: file, LineNumber: line, ErrorType: contract.ErrorType(typ), Message: msg}
	}
	orig := "package kv\n\nfunc Key(n string, i int) string {\n\treturn strings.ToUpper(n) + strconv.Itoa(i)\n}\n"
	// The import fix inserts two lines after line 1: line 4 becomes 6.
	patched := "package kv\n\nimport \"strings\"\n\nfunc Key(n string, i int) string {\n\treturn strings.ToUpper(n) + strconv.Itoa(i)\n}\n"
	fix := applied{path: "kv.go", decision: GateDecision{Hunks: LineDiff(orig, patched)}}
	strs := rep("kv.go", 4, "TYPE_ERROR", "undefined: strings")
	semi := rep("Main.java", 2, "SYNTAX", "';' expected")
	conv := rep("kv.go", 4, "TYPE_ERROR", "undefined: strconv")
	add, sub := "TestAdd", "TestSub"
	addFails := contract.BugReport{FilePath: "kv_test.go", LineNumber: 8, ErrorType: contract.ErrLogic, Message: "Key = a, want A", TestName: &add}
	subFails := contract.BugReport{FilePath: "kv_test.go", LineNumber: 15, ErrorType: contract.ErrLogic, Message: "Key = b, want B", TestName: &sub}
	for _, tc := range []struct {
		name          string
		targets       []contract.BugReport
		before, after []contract.BugReport
		exit          int
		want          string // "" or a substring of the reason
	}{
		{"green", []contract.BugReport{strs}, []contract.BugReport{strs}, nil, 0, ""},
		{"target gone, the next error shows", []contract.BugReport{strs}, []contract.BugReport{strs},
			[]contract.BugReport{rep("kv.go", 6, "TYPE_ERROR", "undefined: strconv")}, 1, ""},
		{"target gone, an error in another file shows", []contract.BugReport{strs}, []contract.BugReport{strs},
			[]contract.BugReport{rep("other.go", 2, "SYNTAX", "expected ;")}, 1, ""},
		{"one of two targets gone", []contract.BugReport{strs, conv}, []contract.BugReport{strs, conv},
			[]contract.BugReport{rep("kv.go", 6, "TYPE_ERROR", "undefined: strconv")}, 1, ""},
		{"target still there, moved by the fix", []contract.BugReport{strs}, []contract.BugReport{strs},
			[]contract.BugReport{rep("kv.go", 6, "TYPE_ERROR", "undefined: strings")}, 1, "its target is still reported: kv.go:4: undefined: strings"},
		{"a written line now fails", []contract.BugReport{strs}, []contract.BugReport{strs},
			[]contract.BugReport{rep("kv.go", 3, "TYPE_ERROR", `"strings" imported and not used`)}, 1, `it broke the lines it wrote: kv.go:3: "strings" imported and not used`},
		{"a hidden error on a rewritten line, before the edit", []contract.BugReport{semi}, []contract.BugReport{semi},
			[]contract.BugReport{{FilePath: "Main.java", LineNumber: 2, Column: 9, ErrorType: "TYPE_ERROR", Message: "cannot find symbol"}}, 1, ""},
		{"a new error inside the edit", []contract.BugReport{semi}, []contract.BugReport{semi},
			[]contract.BugReport{{FilePath: "Main.java", LineNumber: 2, Column: 47, ErrorType: "SYNTAX", Message: "illegal start of expression"}}, 1, "it broke the lines it wrote"},
		{"no report to judge by", []contract.BugReport{strs}, []contract.BugReport{strs}, nil, 1, "its log names no error"},
		{"the target test passes, another turns red", []contract.BugReport{addFails}, []contract.BugReport{addFails},
			[]contract.BugReport{subFails}, 1, "it turned other tests red: TestSub (kv_test.go)"},
		{"the target test passes, another was already red", []contract.BugReport{addFails}, []contract.BugReport{addFails, subFails},
			[]contract.BugReport{subFails}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fix
			if tc.targets[0].FilePath == "Main.java" {
				jo := "class Main {\n        List<String> names = new ArrayList<>()\n}\n"
				jp := "class Main {\n        List<String> names = new ArrayList<>();\n}\n"
				f = applied{path: "Main.java", decision: GateDecision{Hunks: LineDiff(jo, jp)}}
			}
			got := judge(f, tc.targets, tc.before, tc.after, tc.exit)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("judge = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWrote(t *testing.T) {
	hunks := LineDiff("a\nb\nc\nd\n", "a\nX\nY\nc\nd\nZ\n")
	for line, want := range map[int]bool{1: false, 2: true, 3: true, 4: false, 5: false, 6: true} {
		if got := wrote(hunks, line); got != want {
			t.Errorf("wrote(%d) = %v, want %v", line, got, want)
		}
	}
}

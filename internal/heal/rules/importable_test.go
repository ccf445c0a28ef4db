package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestImportable(t *testing.T) {
	ws := t.TempDir()
	for p, body := range map[string]string{
		"go.mod":                 "module example.com/demo\n\ngo 1.22\n",
		"tally/tally.go":         "package tally\n\n// Count counts.\nfunc Count() int { return 0 }\n",
		"app/helpers.py":         "def slugify(s):\n    return s\n",
		"web/src/parse.js":       "export default function parse(t) { return t; }\n",
		"web/src/util/format.js": "export function format(d) { return d; }\n",
		"src/demo/Thing.java":    "package demo;\npublic class Thing {}\n",
	} {
		writeTestFile(t, filepath.Join(ws, filepath.FromSlash(p)), body)
	}
	for _, tc := range []struct {
		name, file, content, ident string
		want                       bool
	}{
		{"go std package used as a package", "main.go", "package main\nfunc f() { strings.ToUpper(\"x\") }\n", "strings", true},
		{"go std package not used as one", "main.go", "package main\nfunc f(strs []string) int { return len(strings) }\n", "strings", false},
		{"go package of the module", "cmd/main.go", "package main\nfunc f() { tally.Count() }\n", "tally", true},
		{"go not a package", "main.go", "package main\nfunc f() { nosuchpkg.X() }\n", "nosuchpkg", false},
		{"go file that does not parse", "main.go", "package main\nfunc f( { strconv.Itoa(1) }\n", "strconv", true},
		{"python stdlib module used as a module", "app/jobs.py", "def f(x):\n    return heapq.nsmallest(1, x)\n", "heapq", true},
		{"python stdlib name used as a value", "app/jobs.py", "def f(times):\n    return time * 2\n", "time", false},
		{"python sibling function", "app/views.py", "def f(x):\n    return slugify(x)\n", "slugify", false},
		{"python unknown", "app/jobs.py", "x = nosuchmod.y\n", "nosuchmod", false},
		{"java jdk class", "src/demo/Main.java", "package demo;\nclass Main { List<String> xs; }\n", "List", true},
		{"java.lang needs no import", "src/demo/Main.java", "package demo;\nclass Main { Strin s; }\n", "String", false},
		{"java class the file declares", "src/demo/Main.java", "package demo;\nclass Main {}\nclass List {}\n", "List", false},
		{"rust table item", "src/main.rs", "fn main() { let m = HashMap::new(); }\n", "HashMap", true},
		{"rust unknown", "src/main.rs", "fn main() {}\n", "HashMapp", false},
		{"node builtin", "web/src/main.js", "fs.readFileSync('x');\n", "fs", true},
		{"node builtin with a close local", "web/src/main.js", "const paths = [];\npath.length;\n", "path", false},
		{"module of the project", "web/src/main.js", "parse('x');\n", "parse", true},
		{"named export further away", "web/src/main.js", "format('x');\n", "format", true},
		{"nothing exports it", "web/src/main.js", "nothing('x');\n", "nothing", false},
		{"other language", "README.md", "strings\n", "strings", false},
	} {
		if got := Importable(ws, tc.file, tc.content, tc.ident); got != tc.want {
			t.Errorf("%s: Importable(%s, %s) = %v, want %v", tc.name, tc.file, tc.ident, got, tc.want)
		}
	}
}

// TestRemapReports checks that a rule sees the reports at their lines
// after an earlier rule inserted or removed lines.
func TestRemapReports(t *testing.T) {
	old := "a\nb\nc\nd\n"
	for _, tc := range []struct {
		name, new string
		lines     []int
		want      []int
	}{
		{"two lines inserted above", "x\ny\na\nb\nc\nd\n", []int{1, 4}, []int{3, 6}},
		{"insertion below", "a\nb\nc\nd\nx\n", []int{2}, []int{2}},
		{"line removed above", "a\nc\nd\n", []int{3, 4}, []int{2, 3}},
		{"edited in place", "a\nB\nc\nd\n", []int{2, 3}, []int{2, 3}},
		{"inside a replaced span that grew", "a\nb1\nb2\nb3\nc\nd\n", []int{2, 4}, []int{2, 6}},
	} {
		var rs []contract.BugReport
		for _, l := range tc.lines {
			rs = append(rs, contract.BugReport{LineNumber: l})
		}
		got := remapReports(old, tc.new, rs)
		for i, r := range got {
			if r.LineNumber != tc.want[i] {
				t.Errorf("%s: line %d moved to %d, want %d", tc.name, tc.lines[i], r.LineNumber, tc.want[i])
			}
		}
	}
}

func writeTestFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

package logparse

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestCleanLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"line\r\n", "line"},
		{"\x1b[1;31merror\x1b[0m: x", "error: x"},
		{"\x1b]8;;http://x\x07link\x1b]8;;\x07", "link"},
		{"10%\r50%\rdone", "done"},
		{"2024-01-15T10:20:30.1234567Z main.go:3:1: x", "main.go:3:1: x"},
		{"2024-01-15T10:20:30.123456Z 00O main.go:3:1: x", "main.go:3:1: x"},
		{"2024-01-15T10:20:30.123456Z 01E+main.go:3:1: x", "2024-01-15T10:20:30.123456Z 01E+main.go:3:1: x"[28:]},
		{"[2024-01-15T10:20:30.123Z] main.go:3:1: x", "main.go:3:1: x"},
		{"#12 0.123 main.go:3:1: x", "main.go:3:1: x"},
		{"#12 [build 3/4] RUN make", "#12 [build 3/4] RUN make"},
		{"section_start:1700000000:build\r\x1b[0Kbuilding", "building"},
		{"section_end:1700000000:build\r\x1b[0K", ""},
		{"#5 12.345 2024-01-15T10:20:30Z a.c:1:2: error: y", "a.c:1:2: error: y"},
		{"0.412 ./main.go:6:2: undefined: x", "./main.go:6:2: undefined: x"},
		{"[10:20:30]W:\t [Step 1/2] main.go:3:1: x", "main.go:3:1: x"},
		{"[10:20:30] main.go:3:1: x", "main.go:3:1: x"},
		{"1.5 seconds", "1.5 seconds"},
		{"\x1b[8mha:////4GQ3Yx==\x1b[0m[Pipeline] sh", "[Pipeline] sh"},
	}
	for _, tt := range tests {
		if got := cleanLine(tt.in); got != tt.want {
			t.Errorf("cleanLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		root, path, base string
		want             string
		res              resolution
	}{
		{"/workspace/app", "/workspace/app/src/a.go", "", "src/a.go", resSure},
		{"/workspace/app", "/usr/include/stdio.h", "", "", resDrop},
		{"/workspace/app", "src/a.go", "", "src/a.go", resSure},
		{"/workspace/app", "./src/../src/a.go", "", "src/a.go", resSure},
		{"/workspace/app", "a.c", "lib", "lib/a.c", resSure},
		{"", "/home/runner/work/r/r/pkg/x.py", "", "pkg/x.py", resSure},
		{"", "/builds/group/proj/x.py", "", "x.py", resSure},
		{"", "/usr/lib/python3.11/json/decoder.py", "", "", resDrop},
		{"", "/app/venv/lib/python3.11/site-packages/x/y.py", "", "", resDrop},
		{"", "node_modules/jest/a.js", "", "", resDrop},
		{"", "node:internal/modules/cjs/loader", "", "", resDrop},
		{"", "/home/ci/.cargo/registry/src/x/lib.rs", "", "", resDrop},
		{"", "/usr/local/go/src/testing/testing.go", "", "", resDrop},
		{"", "internal/auth/token.go", "", "internal/auth/token.go", resSure},
		{"", `C:\a\src\x.ts`, "", "C:/a/src/x.ts", resGuess},
		{"/ws", "../outside.c", "", "", resDrop},
	}
	for _, tt := range tests {
		r := newResolver(tt.root, "")
		got, res := r.resolve(tt.path, tt.base)
		if got != tt.want || res != tt.res {
			t.Errorf("resolve(root %q, %q, base %q) = %q, %v; want %q, %v", tt.root, tt.path, tt.base, got, res, tt.want, tt.res)
		}
	}
}

func TestResolveWorkspaceSuffix(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "svc/internal/db/db.go", "package db\n")
	writeFile(t, ws, "src/test/java/com/x/AppTest.java", "class AppTest {}\n")
	r := newResolver("", ws)
	for in, want := range map[string]string{
		"/some/other/root/svc/internal/db/db.go": "svc/internal/db/db.go",
		"com/x/AppTest.java":                     "src/test/java/com/x/AppTest.java",
		"internal/db/db.go":                      "svc/internal/db/db.go",
	} {
		if got, res := r.resolve(in, ""); got != want || res == resDrop {
			t.Errorf("resolve(%q) = %q, %v; want %q", in, got, res, want)
		}
	}
}

// TestMessyLog runs one log through every kind of CI noise at once.
func TestMessyLog(t *testing.T) {
	log := strings.Join([]string{
		"2026-01-01T00:00:00.0000000Z ##[group]Run cd api && go vet ./...",
		"2026-01-01T00:00:01.0000000Z \x1b[31mhandler.go:12:3: fmt.Printf format %d has arg s of wrong type string\x1b[0m\r",
		"2026-01-01T00:00:02.0000000Z ##[group]Run make -C native",
		"2026-01-01T00:00:03.0000000Z make: Entering directory '/home/runner/work/r/r/native'",
		"2026-01-01T00:00:04.0000000Z vec.c:4:31: error: 'struct vec' has no member named 'z'",
		"2026-01-01T00:00:04.5000000Z vec.c:4:31: error: 'struct vec' has no member named 'z'",
		"2026-01-01T00:00:05.0000000Z /usr/include/stdio.h:10:1: error: in a system header",
		"2026-01-01T00:00:06.0000000Z make: Leaving directory '/home/runner/work/r/r/native'",
	}, "\r\n")
	got := renderText(ParseString(log, Options{}))
	want := "api/handler.go:12:3: LINTING fmt.Printf format %d has arg s of wrong type string [go vet printf]\n" +
		"native/vec.c:4:31: TYPE_ERROR 'struct vec' has no member named 'z' [cc]\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMaxReportsAndLongLines(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.Repeat("x", 3*MaxLineLength) + "\n")
	for i := 1; i <= 50; i++ {
		b.WriteString("a.c:" + itoa(i) + ":1: error: 'x' undeclared\n")
	}
	got := ParseString(b.String(), Options{MaxReports: 10})
	if len(got) != 10 {
		t.Fatalf("got %d reports, want the cap of 10", len(got))
	}
	checkValid(t, got)
}

func TestEmptyAndPassingLogs(t *testing.T) {
	for _, log := range []string{"", "\n\n", "ok  \texample.com/m\t0.01s\n", "=== RUN   TestA\n    a_test.go:5: just logging\n--- PASS: TestA (0.00s)\nPASS\n"} {
		got := ParseString(log, Options{})
		if got == nil || len(got) != 0 {
			t.Errorf("ParseString(%q) = %v, want []", log, got)
		}
	}
}

func TestClassifyMessage(t *testing.T) {
	tests := map[string]contract.ErrorType{
		`"os" imported and not used`:                    contract.ErrImport,
		"fatal error: foo.h: No such file or directory": contract.ErrImport,
		"expected ';' before 'return'":                  contract.ErrSyntax,
		"undefined: x":                                  contract.ErrTypeError,
		"IndentationError: unexpected indent":           contract.ErrIndentation,
		"missing separator.  Stop.":                     contract.ErrIndentation,
		"something else entirely":                       contract.ErrLogic,
		"cannot use x (variable of type int) as string": contract.ErrTypeError,
		"No module named 'yaml'":                        contract.ErrImport,
		"unterminated call to function 'wildcard'":      contract.ErrSyntax,
	}
	for msg, want := range tests {
		if got := classifyMessage(msg, contract.ErrLogic); got != want {
			t.Errorf("classifyMessage(%q) = %s, want %s", msg, got, want)
		}
	}
}

func writeFile(t *testing.T, root, rel, body string) {
	t.Helper()
	p := root + "/" + rel
	if err := mkdirAll(p); err != nil {
		t.Fatal(err)
	}
	if err := writeBytes(p, body); err != nil {
		t.Fatal(err)
	}
}

func TestCIAnnotationsAndGradleFull(t *testing.T) {
	log := strings.Join([]string{
		"##[error]src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
		"##vso[task.logissue type=error;sourcepath=src/db.go;linenumber=9;columnnumber=2;code=SA4006;]this value of err is never used",
		"##vso[task.logissue type=warning;sourcepath=src/x.go;linenumber=1;]ignored",
		"> Task :app:test FAILED",
		"",
		"RouterTest > matchesPrefix() FAILED",
		"    org.opentest4j.AssertionFailedError: expected: <true> but was: <false>",
		"        at app//org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:55)",
		"        at app//demo.RouterTest.matchesPrefix(RouterTest.java:21)",
	}, "\n")
	got := renderText(ParseString(log, Options{}))
	want := "src/app.ts:3:7: TYPE_ERROR Type 'string' is not assignable to type 'number'. [tsc TS2322]\n" +
		"src/db.go:9:2: LINTING this value of err is never used [azure SA4006]\n" +
		"src/test/java/demo/RouterTest.java:21: LOGIC org.opentest4j.AssertionFailedError: expected: <true> but was: <false> [java] (test matchesPrefix)\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestWorkspaceAbsolutePaths covers a log made on this host: go test run in
// a package directory below the workspace root prints absolute panic frames
// and package-relative t.Errorf lines. Both must come out relative to the
// workspace, not to the package directory the log teaches as a root.
func TestWorkspaceAbsolutePaths(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "gopanic/go.mod", "module gp\n")
	writeFile(t, ws, "gopanic/x_test.go", "package gp\n")
	abs := filepath.ToSlash(filepath.Join(ws, "gopanic", "x_test.go"))
	log := strings.Join([]string{
		"--- FAIL: TestA (0.00s)",
		"    --- FAIL: TestA/sub_bad (0.00s)",
		"        x_test.go:9: bad value 3",
		"--- FAIL: TestB (0.00s)",
		"panic: runtime error: invalid memory address or nil pointer dereference [recovered]",
		"	panic: runtime error: invalid memory address or nil pointer dereference",
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4f0e2e]",
		"",
		"goroutine 21 [running]:",
		"testing.tRunner.func1.2({0x5129a0, 0x6a1f40})",
		"	/usr/local/go/src/testing/testing.go:1734 +0x21c",
		"gp.helper(...)",
		"	" + abs + ":5",
		"gp.TestB(0xc0000a2340?)",
		"	" + abs + ":12 +0x10",
		"FAIL	gp	0.005s",
		"FAIL",
	}, "\n")
	got := renderText(ParseString(log, Options{Workspace: ws}))
	for _, want := range []string{"gopanic/x_test.go:5: LOGIC", "gopanic/x_test.go:9: LOGIC"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\nx_test.go") || strings.HasPrefix(got, "x_test.go") {
		t.Errorf("a path relative to the package directory escaped:\n%s", got)
	}
}

func TestUnifyBases(t *testing.T) {
	rep := func(paths ...string) []contract.BugReport {
		out := make([]contract.BugReport, len(paths))
		for i, p := range paths {
			out[i] = contract.BugReport{FilePath: p, LineNumber: i + 1}
		}
		return out
	}
	tests := []struct {
		name    string
		in      []string
		want    []string
		changed bool
	}{
		{"one directory names it", []string{"x_test.go", "pkg/x_test.go"}, []string{"pkg/x_test.go", "pkg/x_test.go"}, true},
		{"two directories: ambiguous, left alone", []string{"x_test.go", "a/x_test.go", "b/x_test.go"}, []string{"x_test.go", "a/x_test.go", "b/x_test.go"}, false},
		{"absolute paths teach nothing", []string{"x.py", "/abs/x.py"}, []string{"x.py", "/abs/x.py"}, false},
		{"other names untouched", []string{"y.go", "pkg/x.go"}, []string{"y.go", "pkg/x.go"}, false},
	}
	for _, tt := range tests {
		out := rep(tt.in...)
		changed := unifyBases(out)
		var got []string
		for _, r := range out {
			got = append(got, r.FilePath)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") || changed != tt.changed {
			t.Errorf("%s: got %v (changed %v), want %v (changed %v)", tt.name, got, changed, tt.want, tt.changed)
		}
	}
}

// TestTrimHelpers checks the line helpers against the standard library
// calls they replace.
func TestTrimHelpers(t *testing.T) {
	for _, s := range []string{"", " ", "\t \t", "  at x", "\tfoo ", "x", " \u00a0", "\u00a0x", " \r\n", "\u2003"} {
		if got, want := trimIndent(s), strings.TrimLeft(s, " \t"); got != want {
			t.Errorf("trimIndent(%q) = %q, want %q", s, got, want)
		}
		if got, want := isBlank(s), strings.TrimSpace(s) == ""; got != want {
			t.Errorf("isBlank(%q) = %v, want %v", s, got, want)
		}
	}
}

package target

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/undertest"
)

// want is the golden part of a Region: Why is checked by prefix only.
type want struct {
	Path       string
	Start, End int
	Symbol     string
	Why        string
}

func strp(s string) *string { return &s }

// noPython makes the resolver read Python lexically.
var noPython = Options{Python: "/nonexistent/python3"}

var resolveCases = []struct {
	name   string
	ws     string
	bug    contract.BugReport
	opt    Options
	python bool // needs a Python interpreter in PATH
	exact  bool // nothing past want is returned
	want   []want
}{
	{name: "go/add", ws: "gomod",
		bug:  contract.BugReport{FilePath: "calc/calc_test.go", LineNumber: 10, Message: "Add(1,2) = -1, want 3", TestName: strp("TestAdd")},
		want: []want{{"calc/calc.go", 5, 7, "calc.Add", "called by TestAdd"}}},
	{name: "go/subtest-helper", ws: "gomod",
		bug:  contract.BugReport{FilePath: "calc/calc_test.go", LineNumber: 21, Message: "got -4, want 4", TestName: strp("TestSub/neg")},
		want: []want{{"calc/calc.go", 18, 23, "calc.Abs", "called by TestSub through checkAbs"}, {"calc/calc.go", 10, 15, "calc.Sub", "called by TestSub"}}},
	{name: "go/subtest-by-name", ws: "gomod",
		bug:  contract.BugReport{FilePath: "calc/calc_test.go", LineNumber: 99, Message: "got 1", TestName: strp("TestAdd/x")},
		want: []want{{"calc/calc.go", 5, 7, "calc.Add", "called by TestAdd"}}},
	{name: "go/table-method", ws: "gomod",
		bug: contract.BugReport{FilePath: "stack/stack_test.go", LineNumber: 20, Message: "two: Pop() = 1, want 2", TestName: strp("TestPushPop")},
		want: []want{
			{"stack/stack.go", 22, 26, "stack.(*Stack).Pop", "called by TestPushPop"},
			{"stack/stack.go", 12, 14, "stack.(*Stack).Push", ""},
			{"stack/stack.go", 9, 9, "stack.New", ""},
		}},
	{name: "go/other-package", ws: "gomod",
		bug:  contract.BugReport{FilePath: "report/report_test.go", LineNumber: 12, Message: "calc is broken", TestName: strp("TestTotal")},
		want: []want{{"calc/calc.go", 5, 7, "calc.Add", "called by TestTotal"}, {"report/report.go", 6, 12, "report.Total", ""}}},
	{name: "go/panic-frames", ws: "gomod",
		bug: contract.BugReport{FilePath: "cache/cache_test.go", LineNumber: 7, TestName: strp("TestPut"), Message: "panic: assignment to entry in nil map\n\ngoroutine 6 [running]:\n" +
			"testing.tRunner.func1.2({0x55a7a0, 0x6cae30})\n\t/usr/local/go/src/testing/testing.go:1974 +0x232\n" +
			"example.com/shop/cache.(*Cache).Put(...)\n\t/home/runner/work/shop/shop/cache/cache.go:7\n" +
			"example.com/shop/cache.TestPut(0x1194fb334248?)\n\t/home/runner/work/shop/shop/cache/cache_test.go:7 +0x29\n"},
		want: []want{{"cache/cache.go", 6, 8, "cache.(*Cache).Put", "stack frame"}}},
	{name: "go/report-location", ws: "gomod",
		bug:  contract.BugReport{FilePath: "cache/cache.go", LineNumber: 7, Message: "panic: assignment to entry in nil map", TestName: strp("TestPut")},
		want: []want{{"cache/cache.go", 6, 8, "cache.(*Cache).Put", "report location"}}},
	{name: "python/from-import", ws: "pyproj", python: true,
		bug:  contract.BugReport{FilePath: "tests/test_ops.py", LineNumber: 11, Message: "assert -1 == 3", TestName: strp("tests/test_ops.py::test_add")},
		want: []want{{"calc/ops.py", 4, 6, "calc.ops.add", "called by test_add"}}},
	{name: "python/parametrize-by-name", ws: "pyproj", python: true,
		bug:  contract.BugReport{FilePath: "tests/test_ops.py", LineNumber: 0, Message: "assert -1 == 3", TestName: strp("test_add_params[1-2]")},
		want: []want{{"calc/ops.py", 4, 6, "calc.ops.add", "called by test_add_params"}}},
	// A slip three calls below the test's: a constructor, a method of
	// the object made, a method through self and a module function follow
	// parse as Reached; format_notes, which nothing reaches, does not.
	{name: "python/reached-through-calls", ws: "pyproj", python: true,
		bug: contract.BugReport{FilePath: "tests/test_notes.py", LineNumber: 5, Message: "assert ['A', 'B'] == ['a', 'b']", TestName: strp("tests/test_notes.py::test_parse")},
		want: []want{
			{"notes/parse.py", 4, 5, "notes.parse.parse", "called by test_parse"},
			{"notes/parse.py", 9, 10, "notes.parse.Parser.__init__", "called by notes.parse.parse, which the code under test reaches"},
			{"notes/parse.py", 12, 13, "notes.parse.Parser.run", "called by notes.parse.parse, which the code under test reaches"},
			{"notes/parse.py", 15, 16, "notes.parse.Parser._note", "called by notes.parse.Parser.run, which the code under test reaches"},
			{"notes/parse.py", 19, 20, "notes.parse._upper", "called by notes.parse.Parser._note, which the code under test reaches"},
		}},
	// _normalise is shared with sort_key, which the test does not reach:
	// only _reverse follows is_palindrome.
	{name: "python/shared-helper-left-out", ws: "pyproj", python: true, exact: true,
		bug: contract.BugReport{FilePath: "tests/test_games.py", LineNumber: 5, Message: "assert False", TestName: strp("tests/test_games.py::test_phrase")},
		want: []want{
			{"words/games.py", 12, 14, "words.games.is_palindrome", "called by test_phrase"},
			{"words/games.py", 8, 9, "words.games._reverse", "called by words.games.is_palindrome, which the code under test reaches"},
		}},
	{name: "python/re-export-and-method", ws: "pyproj", python: true,
		bug:  contract.BugReport{FilePath: "tests/test_calc_pkg.py", LineNumber: 7, Message: "assert -1 == 3", TestName: strp("test_chain")},
		want: []want{{"calc/ops.py", 17, 19, "calc.ops.Calc.add", "called by test_chain"}, {"calc/ops.py", 14, 15, "calc.ops.Calc.__init__", ""}}},
	// A package that re-exports its modules with star imports, as many
	// do: the last module imported defines the name.
	{name: "python/star-re-export", ws: "pyproj", python: true,
		bug:  contract.BugReport{FilePath: "tests/test_seqtools.py", LineNumber: 8, Message: "AssertionError: Lists differ: ['a', 'b'] != ['a', 'b', 'a', 'b']", TestName: strp("test_happy_path (tests.test_seqtools.NcyclesTests.test_happy_path)")},
		want: []want{{"seqtools/recipes.py", 6, 8, "seqtools.recipes.ncycles", "called by test_happy_path"}}},
	{name: "python/star-re-export-earlier-module", ws: "pyproj", python: true,
		bug:  contract.BugReport{FilePath: "tests/test_seqtools.py", LineNumber: 13, Message: "AssertionError", TestName: strp("test_even (tests.test_seqtools.ChunkedTests.test_even)")},
		want: []want{{"seqtools/more.py", 6, 9, "seqtools.more.chunked", "called by test_even"}}},
	{name: "python/unittest", ws: "pyproj", python: true,
		bug:  contract.BugReport{FilePath: "tests/test_money.py", LineNumber: 11, Message: "AssertionError: 150 != 1500", TestName: strp("test_cents (tests.test_money.TestMoney.test_cents)")},
		want: []want{{"money/money.py", 5, 6, "money.money.Money.cents", "called by test_cents"}, {"money/money.py", 2, 3, "money.money.Money.__init__", "used by setUp"}}},
	{name: "python/traceback", ws: "pyproj",
		bug: contract.BugReport{FilePath: "tests/test_ops.py", LineNumber: 11, TestName: strp("test_add"), Message: "Traceback (most recent call last):\n" +
			"  File \"/home/runner/work/pyproj/pyproj/tests/test_ops.py\", line 11, in test_add\n    assert add(1, 2) == 3\n" +
			"  File \"/home/runner/work/pyproj/pyproj/calc/ops.py\", line 6, in add\n    return a - b\nTypeError: boom"},
		want: []want{{"calc/ops.py", 4, 6, "calc.ops.add", "stack frame"}}},
	{name: "python/pytest-short-traceback", ws: "pyproj",
		bug: contract.BugReport{FilePath: "tests/test_ops.py", LineNumber: 11, TestName: strp("test_add"), Message: "tests/test_ops.py:11: in test_add\n" +
			"    assert add(1, 2) == 3\ncalc/ops.py:6: in add\n    return a / 0\nE   ZeroDivisionError: division by zero"},
		want: []want{{"calc/ops.py", 4, 6, "calc.ops.add", "stack frame"}}},
	{name: "java/frame", ws: "javaproj",
		bug: contract.BugReport{FilePath: "src/test/java/com/acme/CartTest.java", LineNumber: 13, TestName: strp("totalAddsItems"),
			Message: "org.opentest4j.AssertionFailedError: expected: <30> but was: <20>\n\tat com.acme.Cart.total(Cart.java:18)\n\tat com.acme.CartTest.totalAddsItems(CartTest.java:13)"},
		want: []want{{"src/main/java/com/acme/Cart.java", 15, 21, "total", "stack frame"}}},
	{name: "js/frame", ws: "jsproj",
		bug: contract.BugReport{FilePath: "__tests__/add.test.js", LineNumber: 6, TestName: strp("math › adds"),
			Message: "expect(received).toBe(expected)\n\n    at add (/home/runner/work/jsproj/jsproj/src/add.js:5:12)\n    at Object.<anonymous> (__tests__/add.test.js:6:12)"},
		want: []want{{"src/add.js", 3, 6, "add", "stack frame"}}},
	{name: "js/imported-call", ws: "jsproj",
		bug:  contract.BugReport{FilePath: "__tests__/add.test.js", LineNumber: 6, TestName: strp("math › adds"), Message: "expect(received).toBe(expected) // Object.is equality"},
		want: []want{{"src/add.js", 3, 6, "add", "called by the test (lexical)"}}},
	{name: "ts/arrow-expression", ws: "jsproj",
		bug:  contract.BugReport{FilePath: "__tests__/add.test.js", LineNumber: 10, Message: "expect(received).toBe(expected)"},
		want: []want{{"src/math.ts", 1, 1, "mul", "called by the test (lexical)"}}},
	{name: "rust/panic-frame", ws: "rustproj",
		bug:  contract.BugReport{FilePath: "tests/it.rs", LineNumber: 3, Message: "thread 'main' panicked at src/lib.rs:8:9:\nempty"},
		want: []want{{"src/lib.rs", 6, 11, "first", "stack frame"}}},
	// A unit test in the crate's own tests module is never a target; the
	// function it calls, outside the module, is.
	{name: "rust/unit-test-calls-its-crate", ws: "rustproj",
		bug:  contract.BugReport{FilePath: "src/lib.rs", LineNumber: 19, Message: "thread 'tests::adds' panicked at src/lib.rs:19:9:\nassertion `left == right` failed"},
		want: []want{{"src/lib.rs", 1, 4, "add", "called by adds (lexical)"}}},
	{name: "rust/integration-test-calls-its-crate", ws: "rustproj",
		bug:  contract.BugReport{FilePath: "tests/it.rs", LineNumber: 5, Message: "assertion `left == right` failed\n  left: -1\n right: 5"},
		want: []want{{"src/lib.rs", 1, 4, "add", "called by adds_two (lexical)"}}},
	// A C test reaches its code through a header: the definition with a
	// body is the code under test, never the prototype or the test.
	{name: "c/header-to-implementation", ws: "cproj",
		bug:  contract.BugReport{FilePath: "tests/test_add.c", LineNumber: 16, Message: "FAIL: add(2, 3) == 5"},
		want: []want{{"src/add.c", 4, 7, "add", "called by main (lexical, declared in include/add.h)"}}},
	{name: "java/method-the-test-calls", ws: "javaproj",
		bug:  contract.BugReport{FilePath: "src/test/java/com/acme/CartTest.java", LineNumber: 13, TestName: strp("totalAddsItems"), Message: "expected: <30> but was: <20>"},
		want: []want{{"src/main/java/com/acme/Cart.java", 15, 21, "Cart.total", "called by totalAddsItems (lexical)"}}},
	{name: "c/sanitizer", ws: "cproj",
		bug: contract.BugReport{FilePath: "tests/test_add.c", LineNumber: 5, Message: "==1==ERROR: AddressSanitizer: stack-buffer-overflow\n" +
			"    #0 0x7f in strcpy (/lib/x86_64-linux-gnu/libasan.so.8+0x1)\n    #1 0x55d in copy /src/cproj/src/add.c:12:5\n    #2 0x55e in main /src/cproj/tests/test_add.c:5"},
		want: []want{{"src/add.c", 9, 13, "copy", "stack frame"}}},
	{name: "c/valgrind", ws: "cproj",
		bug:  contract.BugReport{FilePath: "tests/test_add.c", LineNumber: 5, Message: "==123== Invalid write\n==123==    at 0x4005A4: add (add.c:6)\n==123==    by 0x4005B0: main (test_add.c:5)"},
		want: []want{{"src/add.c", 4, 7, "add", "stack frame"}}},
}

func TestResolve(t *testing.T) {
	_, pyErr := exec.LookPath(DefaultPython)
	for _, tc := range resolveCases {
		opts := map[string]Options{"": tc.opt}
		if tc.python {
			opts["/lexical"] = noPython
		}
		for suffix, opt := range opts {
			t.Run(tc.name+suffix, func(t *testing.T) {
				if tc.python && suffix == "" && pyErr != nil {
					t.Skipf("%s is not in PATH: the ast-based resolution cannot run here", DefaultPython)
				}
				got, err := Resolve(context.Background(), filepath.Join("testdata", tc.ws), tc.bug, opt)
				if err != nil {
					t.Fatal(err)
				}
				checkRegions(t, got, tc.want)
				if tc.exact && len(got) != len(tc.want) {
					t.Errorf("got %d regions, want exactly %d:\n%s", len(got), len(tc.want), regions(got))
				}
				if suffix == "/lexical" {
					for _, r := range got {
						if !strings.Contains(r.Why, "lexical: no Python interpreter found") {
							t.Errorf("%v: a lexical resolution must say so", r)
						}
					}
				}
			})
		}
	}
}

func checkRegions(t *testing.T, got []undertest.Region, want []want) {
	t.Helper()
	if len(got) < len(want) || len(want) == 0 && len(got) > 0 {
		t.Fatalf("got %d regions, want at least %d:\n%s", len(got), len(want), regions(got))
	}
	for i, w := range want {
		g := got[i]
		if g.Path != w.Path || g.Start != w.Start || g.End != w.End || g.Symbol != w.Symbol || !strings.HasPrefix(g.Why, w.Why) {
			t.Errorf("region %d = %v, want %s:%d-%d %s (%s…)\nall:\n%s", i, g, w.Path, w.Start, w.End, w.Symbol, w.Why, regions(got))
		}
	}
	for _, g := range got {
		if isTestFile(g.Path) {
			t.Errorf("%v: a test file is never a target", g)
		}
	}
}

func regions(rs []undertest.Region) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  " + r.String() + "\n")
	}
	return b.String()
}

func TestResolveMax(t *testing.T) {
	bug := contract.BugReport{FilePath: "stack/stack_test.go", LineNumber: 20, Message: "Pop", TestName: strp("TestPushPop")}
	got, err := Resolve(context.Background(), "testdata/gomod", bug, Options{Max: 1})
	if err != nil || len(got) != 1 {
		t.Fatalf("Resolve with Max 1 = %v, %v", got, err)
	}
}

func TestResolveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bug := contract.BugReport{FilePath: "calc/calc_test.go", LineNumber: 10}
	if _, err := Resolve(ctx, "testdata/gomod", bug, Options{}); err == nil {
		t.Fatal("a cancelled resolution must fail")
	}
}

// TestEscapesRefused checks that neither a report nor a frame reaches a
// file outside the workspace, through a symlink or "..".
func TestEscapesRefused(t *testing.T) {
	dir := t.TempDir()
	ws, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "pkg")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := "def leak():\n    return 1\n"
	for _, f := range []string{filepath.Join(outside, "secret.py"), filepath.Join(outside, "secret.go")} {
		if err := os.WriteFile(f, []byte(secret), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.py"), filepath.Join(ws, "pkg", "file.py")); err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		`File "link/secret.py", line 1, in leak`,
		`File "../outside/secret.py", line 1, in leak`,
		`File "pkg/../../outside/secret.py", line 1, in leak`,
		`File "` + filepath.Join(outside, "secret.py") + `", line 1, in leak`,
		`File "/elsewhere/link/secret.py", line 1, in leak`,
		`File "pkg/file.py", line 1, in leak`,
		"\t../outside/secret.go:1 +0x1d",
		"\t" + filepath.Join(ws, "link", "secret.go") + ":1",
	}
	for _, msg := range msgs {
		for _, fp := range []string{"tests/test_x.py", "link/secret.py", "pkg/file.py", "../outside/secret.py"} {
			got, err := Resolve(context.Background(), ws, contract.BugReport{FilePath: fp, LineNumber: 1, Message: msg}, noPython)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) > 0 {
				t.Errorf("FilePath %q, message %q: got %v, want nothing outside the workspace", fp, msg, got)
			}
		}
	}
	if _, err := TestContext(context.Background(), ws, contract.BugReport{FilePath: "link/secret.py", LineNumber: 1}, noPython); err == nil {
		t.Error("TestContext read a file through a symlink out of the workspace")
	}
}

var contextCases = []struct {
	name, ws string
	bug      contract.BugReport
	opt      Options
	header   string
	lines    [2]int
}{
	{"go/subtest", "gomod", contract.BugReport{FilePath: "calc/calc_test.go", LineNumber: 21, TestName: strp("TestSub/neg")}, Options{},
		"calc/calc_test.go (calc.TestSub, 14-23; read-only, the failing test):", [2]int{14, 23}},
	{"python/unittest", "pyproj", contract.BugReport{FilePath: "tests/test_money.py", LineNumber: 11}, noPython,
		"tests/test_money.py (TestMoney.test_cents, 10-11;", [2]int{10, 11}},
	{"js/it-block", "jsproj", contract.BugReport{FilePath: "__tests__/add.test.js", LineNumber: 6}, Options{},
		"__tests__/add.test.js (lines 5-7;", [2]int{5, 7}},
	{"java/method", "javaproj", contract.BugReport{FilePath: "src/test/java/com/acme/CartTest.java", LineNumber: 13, TestName: strp("totalAddsItems")}, Options{},
		"src/test/java/com/acme/CartTest.java (totalAddsItems, 8-14;", [2]int{8, 14}},
	{"no-function", "gomod", contract.BugReport{FilePath: "calc/calc_test.go", LineNumber: 2}, Options{},
		"calc/calc_test.go (lines 1-17;", [2]int{1, 17}},
}

func TestTestContext(t *testing.T) {
	for _, tc := range contextCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TestContext(context.Background(), filepath.Join("testdata", tc.ws), tc.bug, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if !strings.HasPrefix(lines[0], tc.header) {
				t.Errorf("header = %q, want prefix %q", lines[0], tc.header)
			}
			if n := len(lines) - 1; n != tc.lines[1]-tc.lines[0]+1 || !strings.HasPrefix(strings.TrimSpace(lines[1]), strconv.Itoa(tc.lines[0])+" |") {
				t.Errorf("got lines:\n%s\nwant %d-%d", got, tc.lines[0], tc.lines[1])
			}
		})
	}
}

func TestTestContextErrors(t *testing.T) {
	for _, bug := range []contract.BugReport{
		{FilePath: "calc/nothere_test.go", LineNumber: 1},
		{FilePath: "calc/calc_test.go", LineNumber: 999},
		{FilePath: "../go.mod", LineNumber: 1},
		{FilePath: "", LineNumber: 1},
	} {
		if got, err := TestContext(context.Background(), "testdata/gomod", bug, Options{}); err == nil {
			t.Errorf("TestContext(%v) = %q, want an error", bug, got)
		}
	}
}

func TestImportPath(t *testing.T) {
	for _, tc := range []struct{ modPath, modRoot, dir, want string }{
		{"example.com/m", ".", ".", "example.com/m"},
		{"example.com/m", ".", "a/b", "example.com/m/a/b"},
		{"example.com/m", "sub", "sub", "example.com/m"},
		{"example.com/m", "sub", "sub/x", "example.com/m/x"},
		{"example.com/m", "sub", "subdir/x", "_/subdir/x"},
		{"", ".", "a", "_/a"},
	} {
		g := &goLoader{modPath: tc.modPath, modRoot: tc.modRoot}
		if got := g.importPath(tc.dir); got != tc.want {
			t.Errorf("importPath(%q) with module %q at %q = %q, want %q", tc.dir, tc.modPath, tc.modRoot, got, tc.want)
		}
	}
}

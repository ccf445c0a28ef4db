package target

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
)

// fuzzWorkspace builds a workspace with code in several languages, a test
// file, and a symlink to a folder outside it.
func fuzzWorkspace(f *testing.F) string {
	dir := f.TempDir()
	ws, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "outside")
	files := map[string]string{
		"ws/pkg/mod.py":         "def add(a, b):\n    return a - b\n\nclass C:\n    def m(self):\n        return 1\n",
		"ws/pkg/mod.go":         "package pkg\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"ws/pkg/mod_test.go":    "package pkg\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tAdd(1, 2)\n}\n",
		"ws/src/add.js":         "function add(a, b) {\n  return a - b;\n}\n",
		"ws/src/lib.rs":         "pub fn add(a: i32) -> i32 {\n    a\n}\n",
		"ws/tests/test_mod.py":  "from pkg.mod import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
		"outside/secret.py":     "def leak():\n    return 1\n",
		"outside/pkg/secret.go": "package pkg\n\nfunc Leak() {}\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		f.Skipf("symlinks unavailable: %v", err)
	}
	return ws
}

var frameSeeds = []string{
	"Traceback (most recent call last):\n  File \"/ci/ws/pkg/mod.py\", line 2, in add\n    return a - b\n",
	"panic: boom\n\ngoroutine 1 [running]:\npkg.Add(...)\n\t/ci/ws/pkg/mod.go:4 +0x1d\n",
	"\tat com.x.Calc.add(Calc.java:7)\n",
	"    at add (src/add.js:2:10)\n    at Object.<anonymous> (file:///ci/ws/src/add.js:2:3)\n",
	"thread 'main' panicked at src/lib.rs:2:5:\nboom\n",
	"    #0 0x55d in add src/add.c:7:3\n",
	"==1==    at 0x4005A4: add (add.c:7)\n",
	"File \"link/secret.py\", line 1, in leak\n",
	"File \"../outside/secret.py\", line 1, in leak\n",
	"\tlink/pkg/secret.go:3 +0x1\n",
	"File \"/x/link/secret.py\", line 1\n",
	"File \"pkg/mod.py\", line 99999999, in add\n",
	"File \"\x00/etc/passwd\", line 1\n",
	strings.Repeat("  File \"pkg/mod.py\", line 1, in add\n", 500),
	strings.Repeat("a", 70000) + "\n\tpkg/mod.go:4\n",
}

// FuzzResolveFrames feeds hostile messages to the frame reader and to
// Resolve: it must never panic, and never return a path outside the
// workspace or a test file.
func FuzzResolveFrames(f *testing.F) {
	ws := fuzzWorkspace(f)
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range frameSeeds {
		f.Add(s, "tests/test_mod.py", 4)
	}
	f.Add("got 1", "pkg/mod_test.go", 6)
	f.Add("", "link/secret.py", 1)
	f.Fuzz(func(t *testing.T, msg, file string, line int) {
		if fs := readFrames(msg); len(fs) > maxFrames {
			t.Fatalf("%d frames, want at most %d", len(fs), maxFrames)
		}
		got, err := Resolve(context.Background(), ws, contract.BugReport{FilePath: file, LineNumber: line, Message: msg}, Options{Lexical: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			p, err := filepath.EvalSymlinks(filepath.Join(ws, filepath.FromSlash(r.Path)))
			if err != nil || !strings.HasPrefix(p, real+string(filepath.Separator)) {
				t.Fatalf("%v: outside the workspace (%s, %v)", r, p, err)
			}
			if isTestFile(r.Path) || r.Start < 1 || r.End < r.Start {
				t.Fatalf("%v: a test file or a bad span", r)
			}
		}
	})
}

// FuzzEnclose feeds hostile sources to the lexical readers: they must
// never panic, and a span they find must hold the line.
func FuzzEnclose(f *testing.F) {
	for _, name := range []string{"cproj/src/add.c", "javaproj/src/main/java/com/acme/Cart.java", "jsproj/src/add.js", "rustproj/src/lib.rs", "pyproj/calc/ops.py",
		"clib/include/calc.h", "clib/tests/test_calc.c", "cppproj/src/rect.cpp", "mvnproj/src/test/java/org/example/calc/CalculatorTest.java",
		"rustcrate/src/lib.rs", "rustcrate/tests/account.rs", "tsproj/src/cart/cart.ts"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), 5, "add")
	}
	f.Add("fn f<'a>(x: &'a str) -> Result<(), E> where T: 'a { '{' }", 1, "f")
	f.Add("a = `${`}`}`; function g() { return /* { */ 1 }", 1, "")
	f.Add("def f(\n  a,\n  b='''x\n'''):\n    return 1\n", 5, "f")
	f.Fuzz(func(t *testing.T, src string, line int, hint string) {
		n := strings.Count(src, "\n") + 1
		for _, lx := range []*lang.Language{cLex, jsLex, rustLex, javaLex} {
			if s, ok := encloseBraces(src, lx, line, hint); ok && (s.start > line || s.end < line || s.start < 1 || s.end > n) {
				t.Fatalf("encloseBraces(%d) = %+v outside 1-%d", line, s, n)
			}
		}
		o := lexOutline(src, true)
		for _, d := range o.Defs {
			if d.L < 1 || d.E < d.D || d.E > n {
				t.Fatalf("lexOutline def %+v outside 1-%d", d, n)
			}
		}
		if ids := identifiers(hint, 32); len(ids) > 32 {
			t.Fatalf("identifiers kept %d", len(ids))
		}
		_, _ = funcName(hint)
		for _, lx := range []*lang.Language{cLex, rustLex} {
			code, defs := braceDefs(src, lx)
			for _, d := range defs {
				if d.start < 1 || d.end < d.start || d.end > n || d.open >= d.close || d.close >= len(src) || d.name == "" {
					t.Fatalf("braceDefs def %+v outside the source (1-%d lines, %d bytes)", d, n, len(src))
				}
			}
			lines := lineStarts(code)
			for _, c := range readCalls(code, 0, len(code), lines) {
				if c.line < 1 || c.line > n || c.name == "" || c.offset < 0 || c.offset >= len(code) {
					t.Fatalf("readCalls call %+v outside the source", c)
				}
			}
			_ = cDeclares(code, hint)
			_ = cMacros(src, nil)
		}
		for _, p := range expandUse(normUse(src), nil, 0) {
			if len(p) == 0 {
				t.Fatalf("expandUse(%q) gave an empty path", src)
			}
		}
		_ = readRustUses(src)
		_ = readJavaScope("src/test/java/FooTest.java", src)
		_, _ = javaChained(src)
	})
}

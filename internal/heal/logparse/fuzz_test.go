package logparse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the parser panic, and that its
// output always keeps the contract: valid types, lines >= 1, repo-relative
// forward-slash paths, confidences in [0, 1], no duplicates, and the same
// bytes on a second parse.
func FuzzParse(f *testing.F) {
	logs, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*", "log.txt"))
	for i, p := range logs {
		if i%3 != 0 {
			continue
		}
		b, err := os.ReadFile(p)
		if err == nil {
			if len(b) > 4096 {
				b = b[:4096]
			}
			f.Add(string(b), "")
		}
	}
	f.Add("Traceback (most recent call last):\n  File \"/ws/a.py\", line 0\nValueError\n", "/ws")
	f.Add("error[E0308]: x\n --> src/a.rs:0:0\n\n", "")
	f.Add("panic: x\n\ngoroutine 1 [running]:\nmain.f()\n\t/ws/m.go:-1 +0x1\n", "/ws")
	f.Add("\x1b[\x1b]\r\r\n#1 0.1 \n::error file=,line=99999999999999999999::\n", "")
	// The run-time and new-ecosystem readers, truncated and malformed.
	for _, seed := range []struct{ log, root string }{
		{"==1==ERROR: AddressSanitizer: heap-use-after-free\n    #0 0x1 in f /ws/a.c:0:0\n    #1 \n#\nSUMMARY: x\n", "/ws"},
		{"WARNING: ThreadSanitizer: data race\n  Write of size 4 by thread T1:\n    #0 f /ws/a.c:5 (a+0x1)\n", "/ws"},
		{"ld.lld: error: duplicate symbol: f\n>>> defined at a.c:1 (/ws/a.c:1)\n>>> defined at\n", "/ws"},
		{"/ws/b.c:1: multiple definition of `f'; x.o:/ws/a.c:: first defined here\n", "/ws"},
		{"  + Exception Group Traceback (most recent call last):\n  |   File \"/ws/a.py\", line 1, in <module>\n  +-+---- 1 ----\n    | ValueError: x\n", "/ws"},
		{"Exception in thread \"main\" java.lang.Error: x\nCaused by: java.lang.Error\n\t... 99 more\n", ""},
		{"panic: test timed out after 1s\n\trunning tests:\n\t\tTestX (1s)\n\ngoroutine 1 [running]:\nm.TestX(0x0)\n\t/ws/x_test.go:1 +0x1\n", "/ws"},
		{"a.rb:1:in `x': y (NoMethodError)\n\tfrom a.rb:0:in `z'\n", ""},
		{"PHP Fatal error:  Uncaught Error: x in /ws/a.php:1\nStack trace:\n#0 /ws/b.php(0): f()\n  thrown in /ws/a.php on line 1\n", "/ws"},
		{"There was 1 failure:\n\n1) T::t\nFailed\n\n/ws/t.php:3\n", "/ws"},
		{"C:\\ws\\a.cs(1,2): error CS1002: ; expected [C:\\ws\\a.csproj]\n  Failed T.t [1 ms]\n  Stack Trace:\n     at T.t() in C:\\ws\\t.cs:line 0\n", `C:\ws`},
		{"/ws/T.swift:3: error: S.t : XCTAssertEqual failed\nA/B.swift:0: Fatal error: x\n", "/ws"},
		{"1/1 Test #1: t ....***Failed  0.0 sec\n1: /ws/t.c:7: FAIL: x\na: /ws/t.c:9: main: Assertion `x' failed.\n", "/ws"},
		// The JS runners' failures: uvu, ava, node-tap (TAP and base), cut short or nested oddly.
		{"   FAIL  \"t\"\n    x is not defined\n\n    at f (/ws/a.js:1:1)\n   FAIL  s  \"\"\n    at (/ws/a.js:0:0)\n", "/ws"},
		{"  ✘ [fail]: t Error thrown in test\n  ✘ [fail]: \n\n  t\n\n  a.js:1\n   1: x\n  › a.js:1:1\n  t\n  ReferenceError: y\n      at /ws/a.js:2:2\n", "/ws"},
		{"# Subtest: a\n    # Subtest: b\n        not ok 1 - c\n          ---\n          type: E Error\n          stack: |\n            f (a.js:1:1)\n          stack: |-\n  not ok 2 - d\n# Subtest: \n", ""},
		{"✖ a > b\n  a.js:1:1\n✖ > \n  x (b.js:0:0)\n✖ c\n  compare: ===\n  type: ReferenceError\n  g (c.js:3:3)\n", ""},
		// javac diagnostics held for their caret and notes, cut short.
		{"A.java:1: error: x\n  y y\n    ^\n  symbol: z\nA.java:1: error: x\n  y y\n  ^\n", ""},
		{"A.java:1: warning: [w] x\n\t^\nA.java:1: error: y\nerror: warnings found and -Werror specified\n", ""},
		// Formatters and Go's checkers: diffs with bad counts, listings, vet lines.
		{"diff a.go.orig a.go\n--- a.go.orig\n+++ a.go\n@@ -0,0 +1,99999999999 @@\n-x\n+y\n \n@@ -3 +3 @@\n", ""},
		{"--- /ws/a.py\t2026\n+++ /ws/a.py\t2026\n@@ -1,2 +1,1 @@\n-a\n-b\n+c\n+d\nwould reformat /ws/a.py\n", "/ws"},
		{"gofmt -l:\n./a.go\n../b.go\n/ws/c.go\n\nd.go\nWould reformat: e.py\nChecking formatting...\n[warn] f.js\n", "/ws"},
		{"a.go:1:1: fmt.Printf format %d has arg x of wrong type string\nb_test.go:0:0: wrong signature for TestX, must be: func TestX(t *testing.T)\nc.go:2:2: m (SA1000)\n", ""},
	} {
		f.Add(seed.log, seed.root)
	}
	f.Fuzz(func(t *testing.T, log, root string) {
		opts := Options{Root: root}
		a := ParseString(log, opts)
		checkValid(t, a)
		b := ParseString(log, opts)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("two parses differ:\n%s\n%s", ja, jb)
		}
	})
}

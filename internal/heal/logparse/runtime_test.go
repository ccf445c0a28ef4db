package logparse

import (
	"strings"
	"testing"
)

// TestRunTimeFormats holds the multi-line and run-time readers to the
// tools' documented shapes, in variants the corpus does not record
// (clang's columns, TSan, nested groups, Windows paths, older tools).
func TestRunTimeFormats(t *testing.T) {
	cases := []struct {
		name string
		root string
		log  string
		want []string // "file:line TYPE"
	}{
		{"java root cause only in shared frames", "", `Exception in thread "main" java.lang.IllegalStateException: boom
	at app.Outer.run(Outer.java:10)
	at app.Outer.main(Outer.java:4)
Caused by: java.lang.NumberFormatException: For input string: "x"
	at java.base/java.lang.Integer.parseInt(Integer.java:668)
	... 2 more
`, []string{"app/Outer.java:10 LOGIC"}},
		{"java suppressed causes are not the root", "", `Exception in thread "main" java.io.UncheckedIOException: close
	at app.Store.save(Store.java:20)
	Suppressed: java.lang.IllegalStateException: other
		at app.Store.close(Store.java:40)
		Caused by: java.lang.RuntimeException: inner
			at app.Store.flush(Store.java:50)
Caused by: java.io.IOException: disk full
	at app.Store.write(Store.java:31)
	... 1 more
`, []string{"app/Store.java:31 LOGIC"}},
		{"clang asan with columns", "/src", `=================================================================
==1==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ffd at pc 0x55 bp 0x7ff sp 0x7ff
WRITE of size 4 at 0x7ffd thread T0
    #0 0x55d3 in fill /src/lib/fill.c:6:14
    #1 0x55d4 in main /src/main.c:12:3
    #2 0x7f1 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x2409a)
SUMMARY: AddressSanitizer: stack-buffer-overflow /src/lib/fill.c:6:14 in fill
`, []string{"lib/fill.c:6 LOGIC"}},
		{"tsan reports both accesses", "/w", `==================
WARNING: ThreadSanitizer: data race (pid=7)
  Write of size 4 at 0x7b04 by thread T2:
    #0 incr /w/counter.c:5 (app+0x1234)
    #1 worker /w/counter.c:11 (app+0x1300)

  Previous write of size 4 at 0x7b04 by thread T1:
    #0 incr /w/counter.c:5 (app+0x1234)
    #1 reset /w/counter.c:17 (app+0x1400)

  Thread T2 (tid=9, running) created by main thread at:
    #0 pthread_create <null> (libtsan.so.2+0x5f)
    #1 main /w/main.c:9 (app+0x1500)

SUMMARY: ThreadSanitizer: data race /w/counter.c:5 in incr
==================
`, []string{"counter.c:5 LOGIC"}},
		{"lld undefined symbol", "", `ld.lld: error: undefined symbol: checksum
>>> referenced by main.c:6 (/tmp/x/src/main.c:6)
>>>               /tmp/main.o:(main)
`, []string{"/tmp/x/src/main.c:6 TYPE_ERROR"}},
		{"older ld prints the first definition on its own line", "/w", "util.o: In function `helper':\n/w/util.c:1: multiple definition of `helper'\nmain.o:/w/main.c:3: first defined here\n",
			[]string{"util.c:1 TYPE_ERROR", "main.c:3 TYPE_ERROR"}},
		{"unity and check lines", "", "test/test_sum.c:13:test_sum_small:FAIL: Expected 10 Was 6\ncheck_money.c:18:F:Core:test_money_create:0: Amount not set\n",
			[]string{"test/test_sum.c:13 LOGIC", "check_money.c:18 LOGIC"}},
		{"mingw gcc with a drive letter", `C:\proj`, "C:\\proj\\src\\main.c:4:5: error: 'x' undeclared (first use in this function)\n",
			[]string{"src/main.c:4 TYPE_ERROR"}},
		{"kotlin file URI on Windows", `D:\a\app\app`, "e: file:///D:/a/app/app/src/main/kotlin/Main.kt:7:18 Unresolved reference 'prinltn'.\n",
			[]string{"src/main/kotlin/Main.kt:7 TYPE_ERROR"}},
		{"msbuild node prefix and relative path", "", "  1>src\\App\\Program.cs(5,13): error CS0103: The name 'x' does not exist in the current context [C:\\w\\App.csproj]\n",
			[]string{"src/App/Program.cs:5 TYPE_ERROR"}},
		{"tsc keeps its own row", "", "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
			[]string{"src/a.ts:3 TYPE_ERROR"}},
		{"nested exception groups", "/w", `  + Exception Group Traceback (most recent call last):
  |   File "/w/app.py", line 20, in <module>
  |     raise ExceptionGroup("outer", [inner, KeyError("k")])
  | ExceptionGroup: outer (2 sub-exceptions)
  +-+---------------- 1 ----------------
    | Exception Group Traceback (most recent call last):
    |   File "/w/app.py", line 12, in build
    |     raise ExceptionGroup("inner", errs)
    | ExceptionGroup: inner (1 sub-exception)
    +-+---------------- 1 ----------------
      | Traceback (most recent call last):
      |   File "/w/app.py", line 8, in build
      |     check(x)
      |   File "/w/check.py", line 3, in check
      |     return 1 / x
      |            ~~^~~
      | ZeroDivisionError: division by zero
      +------------------------------------
    +---------------- 2 ----------------
    | KeyError: 'k'
    +------------------------------------
`, []string{"check.py:3 LOGIC"}},
		{"exception group without tracebacks falls back to the group", "/w", `  + Exception Group Traceback (most recent call last):
  |   File "/w/app.py", line 5, in <module>
  |     raise ExceptionGroup("bad", [ValueError(1)])
  | ExceptionGroup: bad (1 sub-exception)
  +-+---------------- 1 ----------------
    | ValueError: 1
    +------------------------------------
done
`, []string{"app.py:5 LOGIC"}},
		{"go timeout before Go 1.20 lists no running tests", "/w", `panic: test timed out after 1s

goroutine 6 [chan receive]:
example.com/m/q.TestWait(0xc000007860)
	/w/q/q_test.go:12 +0x6d
testing.tRunner(0xc000007860, 0x5a4b28)
	/usr/local/go/src/testing/testing.go:1446 +0x10b
created by testing.(*T).Run
	/usr/local/go/src/testing/testing.go:1493 +0x35f
FAIL	example.com/m/q	1.012s
`, []string{"q/q_test.go:12 LOGIC"}},
		{"ruby 3.4 quotes and a gem frame", "/w", `/usr/lib/ruby/3.4.0/json/common.rb:221:in 'JSON::Ext::Parser.parse': unexpected token (JSON::ParserError)
	from /usr/lib/ruby/3.4.0/json/common.rb:221:in 'JSON.parse'
	from /w/lib/config.rb:7:in 'Config.load'
	from bin/run:3:in '<main>'
`, []string{"lib/config.rb:7 LOGIC"}},
		{"php fatal error that is not an exception", "/app", "PHP Fatal error:  Cannot redeclare total() (previously declared in /app/src/a.php:3) in /app/src/b.php on line 5\n",
			[]string{"src/b.php:5 TYPE_ERROR"}},
		{"php warnings do not fail", "/app", "PHP Warning:  Undefined variable $x in /app/src/a.php on line 3\n", nil},
		{"swift trap in the standard library has no workspace line", "", "Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range\n", nil},
		{"swift trap by fileID without a workspace", "", "App/Config.swift:8: Fatal error: Unexpectedly found nil while unwrapping an Optional value\n",
			[]string{"Sources/App/Config.swift:8 LOGIC"}},
		{"ctest -V prefixes", "/w", `test 1
    Start 1: clamp

1: Test command: /w/build/test_clamp
1: Test timeout computed to be: 1500
1: /w/tests/test_clamp.c:7: FAIL: clamp(11, 0, 10) == 0, want 10
1/1 Test #1: clamp ............................***Failed    0.00 sec
`, []string{"tests/test_clamp.c:7 LOGIC"}},
		{"a stray dotnet-like line does not hide the next ones", "", "  Failed to fetch [mirror]\nsrc/a.c:3:5: error: 'x' undeclared (first use in this function)\n",
			[]string{"src/a.c:3 TYPE_ERROR"}},
		{"an rspec-like block ends at the first line rspec would not print", "", "Failures:\n\n  1) something\nsrc/a.c:3:5: error: expected ';' before '}' token\n",
			[]string{"src/a.c:3 SYNTAX"}},
		{"ruby 3.4 (prism) syntax errors", "", "lib/cart.rb:9: syntax errors found (SyntaxError)\n   8 |   end\n>  9 | end\n    |    ^ unexpected end-of-input\n",
			[]string{"lib/cart.rb:9 SYNTAX"}},
		{"rubocop offenses in the emacs format", "/w", "/w/lib/a.rb:3:5: W: Lint/UselessAssignment: Useless assignment to variable - x.\n/w/lib/a.rb:1:1: F: Lint/Syntax: unexpected token kEND\n",
			[]string{"lib/a.rb:3 LINTING", "lib/a.rb:1 SYNTAX"}},
		{"rust should_panic without a location is not placed", "", "---- tests::t stdout ----\nnote: test did not panic as expected\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseString(tc.log, Options{Root: tc.root})
			checkValid(t, got)
			var lines []string
			for _, r := range got {
				lines = append(lines, r.FilePath+":"+itoa(r.LineNumber)+" "+string(r.ErrorType))
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(lines, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestTestNames checks that the run-time readers name the failing test.
func TestTestNames(t *testing.T) {
	cases := []struct{ log, want string }{
		{"[ RUN      ] Suite.Case\nt.cc:3: Failure\nExpected equality\n[  FAILED  ] Suite.Case (0 ms)\n", "Suite.Case"},
		{"    Start 2: mean\n2/3 Test #2: mean ....Subprocess aborted***Exception:   0.00 sec\nt: t.c:6: main: Assertion `x' failed.\n", "mean"},
		{"--- FAIL: FuzzX (0.02s)\n    --- FAIL: FuzzX (0.00s)\n        x_test.go:9: bad\n    \n    Failing input written to testdata/fuzz/FuzzX/abc\nFAIL\nFAIL\tex.com/m\t0.1s\n", "FuzzX"},
	}
	for _, tc := range cases {
		got := ParseString(tc.log, Options{})
		if len(got) != 1 || got[0].TestName == nil || *got[0].TestName != tc.want {
			t.Errorf("%q: got %+v, want one report of test %q", tc.log, got, tc.want)
		}
	}
}

func TestPytestBanner(t *testing.T) {
	tests := []struct {
		in, title string
		ok        bool
	}{
		{"=================================== FAILURES ===================================", "FAILURES", true},
		{"=========== short test summary info ============", "short test summary info", true},
		{"=== 1 failed, 2 passed in 0.12s ===", "1 failed, 2 passed in 0.12s", true},
		{"=== a = b ===", "a = b", true},
		{"==== x ==", "", false},
		{"== x ====", "", false},
		{"=========", "", false},
		{"=== ===", "", false},
		{"===x===", "", false},
	}
	for _, tt := range tests {
		title, ok := pytestBanner(tt.in)
		if title != tt.title || ok != tt.ok {
			t.Errorf("pytestBanner(%q) = %q, %v, want %q, %v", tt.in, title, ok, tt.title, tt.ok)
		}
	}
}

package target

import (
	"strings"
	"testing"
)

// frameFixtures holds one line per frame row, and the frame it reads.
var frameFixtures = map[string]struct {
	line string
	want frame
}{
	"python":         {`  File "/ci/app/calc/ops.py", line 7, in add`, frame{path: "/ci/app/calc/ops.py", line: 7, fn: "add"}},
	"pytest":         {`calc/ops.py:7: in add`, frame{path: "calc/ops.py", line: 7, fn: "add"}},
	"go":             {"\t/ci/app/calc/add.go:7 +0x1d", frame{path: "/ci/app/calc/add.go", line: 7}},
	"jvm":            {"\tat com.x.Calc$Inner.lambda$add$0(Calc.java:7)", frame{path: "com/x/Calc.java", suffix: true, line: 7, fn: "add"}},
	"js":             {"    at Calc.add (src/add.js:7:10)", frame{path: "src/add.js", line: 7, fn: "add"}},
	"rust-panic":     {"thread 'main' panicked at src/lib.rs:7:5:", frame{path: "src/lib.rs", line: 7}},
	"rust-backtrace": {"             at ./src/lib.rs:7:5", frame{path: "./src/lib.rs", line: 7}},
	"sanitizer":      {"    #0 0x55d in add /ci/app/src/add.c:7:12", frame{path: "/ci/app/src/add.c", line: 7, fn: "add"}},
	"valgrind":       {"==12==    at 0x4005A4: add (add.c:7)", frame{path: "add.c", suffix: true, line: 7, fn: "add"}},
}

func TestFrameRows(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range frameRows {
		if seen[row.name] {
			t.Errorf("row %q twice", row.name)
		}
		seen[row.name] = true
		fx, ok := frameFixtures[row.name]
		if !ok {
			t.Errorf("row %q has no fixture", row.name)
			continue
		}
		got := readFrames(fx.line)
		if len(got) != 1 || got[0] != fx.want {
			t.Errorf("row %q read %q as %+v, want %+v", row.name, fx.line, got, fx.want)
		}
	}
	for name := range frameFixtures {
		if !seen[name] {
			t.Errorf("fixture %q has no row", name)
		}
	}
}

func TestFrameOrder(t *testing.T) {
	msg := "Traceback (most recent call last):\n  File \"a.py\", line 1, in outer\n  File \"b.py\", line 2, in inner\n"
	got := readFrames(msg)
	if len(got) != 2 || got[0].path != "b.py" || got[1].path != "a.py" {
		t.Errorf("Python frames = %+v, want the innermost first", got)
	}
	long := strings.Repeat("\tx.go:1\n", 1000)
	if n := len(readFrames(long)); n != maxFrames {
		t.Errorf("%d frames kept, want %d", n, maxFrames)
	}
}

func TestIsTestFile(t *testing.T) {
	for rel, want := range map[string]bool{
		"calc/calc_test.go": true, "calc/calc.go": false, "tests/test_ops.py": true, "calc/test_x.py": true,
		"calc/ops_test.py": true, "conftest.py": true, "calc/ops.py": false, "src/add.test.ts": true,
		"src/add.spec.js": true, "__tests__/add.js": true, "src/add.js": false,
		"src/test/java/com/x/CalcTest.java": true, "src/main/java/com/x/Calc.java": false,
		"spec/calc_spec.rb": true, "lib/calc.rb": false, "testdata/x/main.go": true, "src/testing.go": false,
		"src/contest.py": false,
	} {
		if got := isTestFile(rel); got != want {
			t.Errorf("isTestFile(%q) = %v, want %v", rel, got, want)
		}
	}
}

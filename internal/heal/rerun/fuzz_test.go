package rerun

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// originals are benign commands a project may have run: their only shell
// operator is &&.
var originals = []string{
	"go build ./... && go vet ./... && go test ./...",
	"go test -race -tags=integration ./...",
	"make test",
	"python -m pytest",
	"python3 -m unittest discover -s tests -v",
	"npm run build && npm test",
	"npx jest --ci",
	"vitest run",
	"npx mocha",
	"node --test",
	"cargo build && cargo test -p ledger",
	"./mvnw -B verify",
	"./gradlew build --no-daemon",
	"dotnet test",
}

// fuzzTools are the report tools the fuzz target draws from.
var fuzzTools = []string{"go test", "go", "pytest", "unittest", "python", "jest", "vitest", "mocha", "node:test", "node",
	"cargo test", "java", "gradle", "dotnet test", "googletest", ""}

// unquoted returns the bytes of cmd that a POSIX shell reads outside
// quotes, and false when a quote is left open. Inside single quotes
// nothing is special; a backslash or a double quote outside them is
// returned as it is, so the caller refuses it.
func unquoted(cmd string) (string, bool) {
	var out strings.Builder
	in := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
		case c == '\'':
			in = true
		default:
			out.WriteByte(c)
		}
	}
	return out.String(), !in
}

// safeUnquoted are the bytes a plan may hold outside quotes (& only as
// the && of the original command).
const safeUnquoted = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,@+- "

// FuzzFor: whatever the test names and paths of the reports, no byte of
// them reaches the plan's command outside single quotes unless it is a
// plain one, quotes are balanced, and the plan's shape holds.
func FuzzFor(f *testing.F) {
	f.Add("TestAdd", "calc_test.go", "TestSub/x", "pkg/sub_test.go", uint8(0), uint8(0))
	f.Add("x'; rm -rf / #", "a b/c.py", "$(id)", "`id`", uint8(3), uint8(2))
	f.Add("chunk › it's \"quoted\"", "src/a.test.js", "a\nb", "../../etc/passwd", uint8(5), uint8(5))
	f.Add("tests::a", "src/lib.rs", "-x", "-rf", uint8(10), uint8(10))
	f.Add("name\\", "src/test/java/A.java", "m$x", "src/test/java/$(id).java", uint8(11), uint8(11))
	f.Add("TestX[a|b]", "tests/test_x.py", "TestX.test_y[1-2]", "tests/test_x.py", uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, name1, file1, name2, file2 string, which, tool uint8) {
		command := originals[int(which)%len(originals)]
		tl := fuzzTools[int(tool)%len(fuzzTools)]
		bugs := []contract.BugReport{
			{FilePath: file1, LineNumber: 1, ErrorType: contract.ErrLogic, TestName: &name1, Tool: tl},
			{FilePath: file2, LineNumber: 2, ErrorType: contract.ErrLogic, TestName: &name2, Tool: tl},
		}
		for _, p := range []string{"go", "python", "node", "rust", "maven", "gradle", "unknown"} {
			plan := For(command, p, bugs)
			if plan.Command == "" {
				if len(plan.Tests) != 0 {
					t.Fatalf("no command but tests %q", plan.Tests)
				}
				continue
			}
			if !plan.Narrowed {
				if plan.Command != command {
					t.Fatalf("an un-narrowed plan changed the command: %q", plan.Command)
				}
				continue
			}
			if len(plan.Tests) == 0 || len(plan.Tests) > MaxTests {
				t.Fatalf("narrowed plan with %d tests", len(plan.Tests))
			}
			out, ok := unquoted(plan.Command)
			if !ok {
				t.Fatalf("unbalanced quotes in %q", plan.Command)
			}
			for i := 0; i < len(out); i++ {
				if !strings.ContainsRune(safeUnquoted, rune(out[i])) {
					t.Fatalf("byte %q outside quotes in %q (names %q, %q; files %q, %q)", out[i], plan.Command, name1, name2, file1, file2)
				}
			}
		}
	})
}

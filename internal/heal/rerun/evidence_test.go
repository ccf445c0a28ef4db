package rerun

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the expected evidence under testdata/evidence")

// TestRead reads every captured runner output under testdata/evidence
// (<runner>/<case>.log; a <case>/ folder beside it is the workspace, for
// the runners whose results are report files) and compares the evidence
// with <case>.json. capture.sh says how the real outputs were captured;
// go test -update rewrites the .json files.
func TestRead(t *testing.T) {
	outs, err := filepath.Glob(filepath.Join("testdata", "evidence", "*", "*.log"))
	if err != nil || len(outs) == 0 {
		t.Fatalf("no captured outputs: %v", err)
	}
	for _, out := range outs {
		runner := filepath.Base(filepath.Dir(out))
		name := strings.TrimSuffix(filepath.Base(out), ".log")
		t.Run(runner+"/"+name, func(t *testing.T) {
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var reports = os.DirFS(strings.TrimSuffix(out, ".log"))
			ev := Read(runner, raw, reports, time.Time{})
			if runner == "go-binary" {
				ev = ReadGoBinary(raw, 1)
			}
			got, _ := json.MarshalIndent(ev, "", "  ")
			golden := strings.TrimSuffix(out, ".log") + ".json"
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update)", err)
			}
			if strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
				t.Errorf("Read(%s) =\n%s\nwant\n%s", out, got, want)
			}
		})
	}
}

// TestReadProves: what each captured run proves of its failing test.
func TestReadProves(t *testing.T) {
	read := func(runner, name string) Evidence {
		raw, err := os.ReadFile(filepath.Join("testdata", "evidence", runner, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		if runner == "go-binary" {
			return ReadGoBinary(raw, 1)
		}
		return Read(runner, raw, os.DirFS(filepath.Join("testdata", "evidence", runner, name)), time.Time{})
	}
	for _, tc := range []struct {
		runner, before, after string
		tests                 []string
		want                  string // "" proves
	}{
		{"go", "fail", "pass", []string{"TestAdd"}, ""},
		{"go", "fail", "fail", []string{"TestAdd"}, "still failing: TestAdd"},
		{"go", "fail", "init-exit", []string{"TestAdd"}, "did not reach its normal end"},
		{"go", "fail", "pass-no-test-files", []string{"TestAdd"}, ""}, // go test -json ./... with a package of no tests
		{"go", "panic", "pass", []string{"TestAdd"}, ""},
		{"go-binary", "fail", "pass", []string{"TestAdd"}, ""},
		{"go-binary", "fail", "pass", []string{"TestTable/case#01"}, ""},
		{"go-binary", "fail", "fail", []string{"TestAdd"}, "still failing: TestAdd"},
		{"go-binary", "panic", "pass", []string{"TestAdd"}, ""},
		{"go-binary", "fail", "init-exit", []string{"TestAdd"}, "no structured results"},
		{"node", "fail", "pass", []string{"adds"}, ""},
		{"node", "fail", "exit", []string{"adds"}, "does not show these tests running"},
		{"unittest", "fail", "pass", []string{"CalcTest.test_add"}, ""},
		{"unittest", "fail", "pass", []string{"test_big"}, "skipped, not passed"},
		{"unittest", "fail", "import-exit", []string{"CalcTest.test_add"}, "no structured results"},
		{"cargo", "fail", "pass", []string{"adds"}, ""},
		{"cargo", "fail", "exit", []string{"adds"}, "did not reach its normal end"},
		{"pytest", "fail", "pass", []string{"tests/test_calc.py::test_add"}, ""},
		{"pytest", "fail", "pass", []string{"test_add"}, ""},
		{"pytest", "fail", "exit", []string{"tests/test_calc.py::test_add"}, "no structured results"},
		{"jest", "fail", "pass", []string{"calc adds"}, ""},
		{"vitest", "pass", "pass", []string{"calc adds"}, ""},
		{"vitest", "pass", "cut", []string{"calc adds"}, "did not reach its normal end"},
		{"maven", "fail", "pass", []string{"RangeTest#overlapsAtEdge"}, ""},
		{"maven", "fail", "pass", []string{"RangeTest#contains"}, "skipped, not passed"},
		{"maven", "fail", "fail", []string{"RangeTest#overlapsAtEdge"}, "still failing"},
	} {
		t.Run(tc.runner+"/"+tc.before+"-"+tc.after, func(t *testing.T) {
			ok, why := Proves(tc.tests, read(tc.runner, tc.before), read(tc.runner, tc.after))
			if ok != (tc.want == "") || !strings.Contains(why, tc.want) {
				t.Errorf("Proves(%v) = %v, %q; want %q", tc.tests, ok, why, tc.want)
			}
		})
	}
}

func TestProvesMissing(t *testing.T) {
	before := Evidence{Runner: "go", Format: "go-test-json", Failed: []string{"TestAdd"}, Passed: []string{"TestSub", "TestSub/x"}, Completed: true}
	after := Evidence{Runner: "go", Format: "go-test-json", Passed: []string{"TestAdd"}, Completed: true}
	if ok, why := Proves([]string{"TestAdd"}, before, after); ok || !strings.Contains(why, "missing after it: TestSub") {
		t.Errorf("Proves = %v, %q", ok, why)
	}
	after.Passed = append(after.Passed, "TestSub", "TestSub/x")
	if ok, why := Proves([]string{"TestAdd"}, before, after); !ok {
		t.Errorf("Proves = %v, %q", ok, why)
	}
}

// TestReadReportsSince: a report older than the run proves nothing.
func TestReadReportsSince(t *testing.T) {
	dir := filepath.Join("testdata", "evidence", "maven", "pass")
	ev := Read("maven", nil, os.DirFS(dir), time.Now().Add(time.Hour))
	if ev.Format != "" || ev.Completed || len(ev.Passed) != 0 {
		t.Errorf("a stale report was read: %+v", ev)
	}
}

func TestReadANSI(t *testing.T) {
	out := "\x1b[32mTAP version 13\x1b[39m\n\x1b[32mok 1 - adds\x1b[39m\n1..1\n"
	ev := Read("node", []byte(out), nil, time.Time{})
	if !ev.Completed || len(ev.Passed) != 1 || ev.Passed[0] != "adds" {
		t.Errorf("coloured TAP: %+v", ev)
	}
}

// FuzzRead: any output, for any runner, reads without panicking, within
// its bounds.
func FuzzRead(f *testing.F) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "evidence", "*", "*.log"))
	for _, o := range outs {
		if b, err := os.ReadFile(o); err == nil {
			f.Add(filepath.Base(filepath.Dir(o)), b)
		}
	}
	f.Add("vitest", []byte("<testsuites><testsuite><testcase name=\"a\"><failure/></testcase></testsuite></testsuites>"))
	f.Fuzz(func(t *testing.T, runner string, out []byte) {
		ev := Read(runner, out, nil, time.Time{})
		if len(ev.Passed) > maxEvidenceNames || len(ev.Summary) > maxSummary+len("…") {
			t.Fatalf("unbounded: %d passed, summary %d", len(ev.Passed), len(ev.Summary))
		}
		_, _ = Proves([]string{"a"}, ev, ev)
		// A test binary's output: bounded, and nothing without the
		// binary's framing mark reads as a result.
		bev := ReadGoBinary(out, 1)
		if len(bev.Passed) > maxEvidenceNames || len(bev.Summary) > maxSummary+len("…") {
			t.Fatalf("unbounded: %d passed, summary %d", len(bev.Passed), len(bev.Summary))
		}
		if plain := ReadGoBinary(bytes.ReplaceAll(out, []byte(framingMark), nil), 1); plain.Format != "" || plain.Completed || len(plain.Passed)+len(plain.Failed) > 0 {
			t.Fatalf("output without the framing mark read as results: %+v", plain)
		}
	})
}

// TestReadGoBinary: only the binary's framed lines are results; what its
// tests print, in any runner's form, is not.
func TestReadGoBinary(t *testing.T) {
	const m = framingMark
	for _, tc := range []struct {
		name, out      string
		binaries       int
		passed, failed []string
		completed      bool
	}{
		{"a pass", m + "=== RUN   TestA\n" + m + "--- PASS: TestA (0.00s)\n" + m + "PASS\n", 1, []string{"TestA"}, nil, true},
		{"a subtest by its full name", m + "--- FAIL: TestA/case#01 (0.01s)\n" + m + "--- FAIL: TestA (0.01s)\n" + m + "FAIL\n", 1, nil, []string{"TestA", "TestA/case#01"}, true},
		{"CRLF line ends", m + "--- PASS: TestA (0.00s)\r\n" + m + "PASS\r\n", 1, []string{"TestA"}, nil, true},
		{"a panic: no closing line", m + "=== RUN   TestA\n" + m + "--- FAIL: TestA (0.00s)\npanic: boom\n", 1, nil, []string{"TestA"}, false},
		{"results a test printed", "--- PASS: TestA (0.00s)\nPASS\n", 1, nil, nil, false},
		{"go test -json events a test printed", `{"Action":"pass","Package":"x","Test":"TestA"}` + "\n" + `{"Action":"output","Package":"x","Output":"PASS\n"}` + "\n" + `{"Action":"pass","Package":"x"}` + "\n", 1, nil, nil, false},
		{"the mark inside a line", "log: " + m + "--- PASS: TestA (0.00s)\n", 1, nil, nil, false},
		{"no tests to run", "testing: warning: no tests to run\n" + m + "PASS\n", 1, nil, nil, true},
		{"two binaries, each closed", m + "--- FAIL: TestA (0.00s)\n" + m + "FAIL\n" + m + "--- PASS: TestB (0.00s)\n" + m + "PASS\n", 2, []string{"TestB"}, []string{"TestA"}, true},
		{"two binaries, the second exits from an init", m + "--- PASS: TestA (0.00s)\n" + m + "PASS\n", 2, []string{"TestA"}, nil, false},
	} {
		ev := ReadGoBinary([]byte(tc.out), tc.binaries)
		if !slices.Equal(ev.Passed, tc.passed) || !slices.Equal(ev.Failed, tc.failed) || ev.Completed != tc.completed || ev.Runner != "go" {
			t.Errorf("%s: %+v; want passed %v, failed %v, completed %v", tc.name, ev, tc.passed, tc.failed, tc.completed)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	if ev := summaryLine(strings.Repeat("ok 1 - a test passed, fine\n", 3) + "4 passed, 0 failed\nexit\n"); ev.Counts == nil || ev.Counts.Passed != 4 || ev.Summary != "4 passed, 0 failed" {
		t.Errorf("summary of a log with other \" passed, \" lines: %+v", ev)
	}
	before := Read(RunnerSummary, []byte("FAIL: gcd(12, -18) == 6\n2 passed, 1 failed\n"), nil, time.Time{})
	for _, tc := range []struct {
		out, want string
	}{
		{"tests: 3 passed, 0 failed\n", ""},
		{"3 passed, 0 failed, 1 skipped\n", ""},
		{"1 passed, 0 failed\n", "fewer tests passed"},
		{"2 passed, 1 failed\n", "still fail"},
		{"ok\n", "no structured results"},
		{"3 passed, 0 failed in the other suite, no really\n", "no structured results"},
		// The last summary line counts, whatever follows it.
		{"2 passed, 1 failed\nretrying\n3 passed, 0 failed\n3 passed, 0 failed in the other suite\ndone", ""},
		{"3 passed, 0 failed\n2 passed, 1 failed\n", "still fail"},
		{"setup\n\n  3 passed, 0 failed  \n\n", ""},
		{"3 passed, 0 failed", ""},
	} {
		ok, why := Proves(nil, before, Read(RunnerSummary, []byte(tc.out), nil, time.Time{}))
		if ok != (tc.want == "") || !strings.Contains(why, tc.want) {
			t.Errorf("%q: Proves = %v, %q; want %q", tc.out, ok, why, tc.want)
		}
	}
}

// FuzzSummaryLine holds summaryLine to the expression tried on every
// line, the last that matches winning: the same counts and the same line,
// whitespace aside. (Over the whole text at once, the expression's
// leading word could be taken from the line before, across the line
// break: "tests:\n3 passed, 0 failed".)
func FuzzSummaryLine(f *testing.F) {
	for _, s := range []string{"2 passed, 1 failed\n", "a\n 3 passed, 0 failed, 1 skipped \n\nb passed, c", "x: 1 passed, 2 failed\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := summaryLine(text)
		var want Evidence
		lines := strings.Split(text, "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if m := summaryRE.FindStringSubmatch(lines[i]); m != nil {
				n := func(s string) int { v, _ := strconv.Atoi(s); return v }
				want = Evidence{Format: "summary-line", Completed: true, Summary: strings.TrimSpace(m[0]), Counts: &Counts{Passed: n(m[1]), Failed: n(m[2]), Skipped: n(m[3])}}
				break
			}
		}
		if (got.Counts == nil) != (want.Counts == nil) || (got.Counts != nil && (*got.Counts != *want.Counts || got.Summary != want.Summary)) {
			t.Errorf("%q: got %+v %+v, the expression gives %+v %+v", text, got, got.Counts, want, want.Counts)
		}
	})
}

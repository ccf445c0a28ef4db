package rerun

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// goEvent is one line of go test -json (test2json's TestEvent).
type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// goJSON reads go test -json. A test's status is its last pass, fail or
// skip action. The run is complete when every package that reported
// anything ended with a package-level pass, fail or skip, and the test binary of
// every package that passed printed its own closing "PASS" (a binary that
// exits 0 from an init, before the testing package runs, prints none), or
// had no test files.
func (c *collector) goJSON(text string) {
	type pkgState struct{ ended, passed, closed bool }
	pkgs := map[string]*pkgState{}
	var order []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var e goEvent
		if json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
			continue
		}
		c.format = "go-test-json"
		p := pkgs[e.Package]
		if p == nil {
			if len(order) >= maxEvidenceNames {
				continue
			}
			p = &pkgState{}
			pkgs[e.Package] = p
			order = append(order, e.Package)
		}
		if e.Test == "" {
			switch e.Action {
			case "pass", "fail":
				p.ended, p.passed = true, e.Action == "pass"
			case "skip":
				// A package with no test files ends so; it must still
				// say it had none ([no test files]), as a pass must
				// print its closing PASS.
				p.ended, p.passed = true, true
			case "output":
				out := strings.TrimSpace(e.Output)
				if out == "PASS" || out == "FAIL" || strings.HasPrefix(out, "testing: warning: no tests to run") {
					p.closed = true
				}
				if strings.HasPrefix(out, "ok ") || strings.HasPrefix(out, "ok\t") || strings.HasPrefix(out, "FAIL\t") || strings.HasPrefix(out, "FAIL ") ||
					strings.HasPrefix(out, "?") {
					c.sum(out)
					if strings.Contains(out, "[no test files]") {
						p.closed = true
					}
				}
			}
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			c.set(e.Test, map[string]string{"pass": "pass", "fail": "fail", "skip": "skip"}[e.Action])
		}
	}
	c.completed = len(order) > 0
	for _, name := range order {
		p := pkgs[name]
		if !p.ended || (p.passed && !p.closed) {
			c.completed = false
		}
	}
}

// framingMark starts each line a go test binary run with
// -test.v=test2json writes about its tests' progress (the ^V test2json
// reads), as opposed to what the tests print.
const framingMark = "\x16"

// goFramed reads the output of go test binaries run one after the other
// with -test.v=test2json, the form go test -json runs a binary in: the
// lines that start with the framing mark are the binaries' own, "---
// PASS: name (0.00s)", "--- FAIL: …", "--- SKIP: …" (subtests by their
// full names), and each binary's closing "PASS" or "FAIL". Lines without
// the mark are the tests' output and are never read as results. The run
// is complete when binaries closing lines were read (a binary that exits
// from an init, or panics, prints none).
func (c *collector) goFramed(text string, binaries int) {
	closed := 0
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), framingMark)
		if !ok {
			continue
		}
		c.format = "go-test-binary"
		if rest == "PASS" || rest == "FAIL" || strings.HasPrefix(rest, "FAIL\t") {
			closed++
			c.sum(rest)
			continue
		}
		report := strings.TrimLeft(rest, " ")
		for prefix, status := range goReports {
			name, ok := strings.CutPrefix(report, prefix)
			if !ok {
				continue
			}
			if i := strings.LastIndex(name, " ("); i >= 0 {
				name = name[:i]
			}
			c.set(name, status)
			break
		}
	}
	c.completed = closed >= max(binaries, 1)
}

// goReports are a test binary's result lines and the status each gives.
var goReports = map[string]string{"--- PASS: ": "pass", "--- FAIL: ": "fail", "--- SKIP: ": "skip"}

var (
	tapPlan   = regexp.MustCompile(`^(\s*)1\.\.(\d+)`)
	tapResult = regexp.MustCompile(`^(\s*)(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*)$`)
	tapSub    = regexp.MustCompile(`^(\s*)# Subtest: (.*)$`)
	tapSkip   = regexp.MustCompile(`(?i)\s+#\s*(skip|todo)\b.*$`)
)

// tap reads TAP 13/14 (node's test runner, mocha's tap reporter). A result
// line's directive (# SKIP, # TODO) makes it a skip. Nested results (node
// subtests, indented) are named both by their own title and by their
// parents' titles joined with spaces. The run is complete when the
// top-level plan (1..N) was read and N top-level results were seen.
func (c *collector) tap(text string) {
	plan, top := -1, 0
	var stack []string // titles of the open subtests, by depth
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := tapSub.FindStringSubmatch(line); m != nil {
			depth := len(m[1]) / 4
			stack = append(stack[:min(depth, len(stack))], m[2])
			continue
		}
		if m := tapPlan.FindStringSubmatch(line); m != nil {
			if m[1] == "" {
				c.format = "tap"
				plan, _ = strconv.Atoi(m[2])
			}
			continue
		}
		m := tapResult.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c.format = "tap"
		depth := len(m[1]) / 4
		title := m[4]
		status := "pass"
		if tapSkip.MatchString(title) {
			status = "skip"
			title = tapSkip.ReplaceAllString(title, "")
		} else if m[2] == "not ok" {
			status = "fail"
		}
		title = strings.TrimSpace(title)
		c.set(title, status)
		if depth > 0 && depth <= len(stack) {
			c.set(strings.Join(append(append([]string{}, stack[:depth]...), title), " "), status)
		}
		if depth == 0 {
			top++
		}
		stack = stack[:min(depth, len(stack))]
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "# tests ") || strings.HasPrefix(line, "# pass ") || strings.HasPrefix(line, "# fail ") {
			c.sum(line)
		}
	}
	c.completed = plan >= 0 && top == plan
}

var (
	pyVerbose = regexp.MustCompile(`^(\S+::\S+)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b`)
	pyShort   = regexp.MustCompile(`^(PASSED|FAILED|ERROR|XFAIL|XPASS)\s+(\S+::\S+)`)
	pyClosing = regexp.MustCompile(`^=+ (.*\b(passed|failed|error|errors|skipped|deselected|no tests ran)\b.*) in [0-9.]+s.*=+$`)
)

// pytest reads pytest's -v lines and its -rA short summary; the run is
// complete when its closing "=== N passed … in Xs ===" line was read.
func (c *collector) pytest(text string) {
	status := map[string]string{"PASSED": "pass", "XPASS": "fail", "FAILED": "fail", "ERROR": "fail", "SKIPPED": "skip", "XFAIL": "skip"}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := pyVerbose.FindStringSubmatch(line); m != nil {
			c.format = "pytest"
			c.set(m[1], status[m[2]])
			continue
		}
		if m := pyShort.FindStringSubmatch(line); m != nil {
			c.format = "pytest"
			c.set(m[2], status[m[1]])
			continue
		}
		if m := pyClosing.FindStringSubmatch(line); m != nil {
			c.format = "pytest"
			c.completed = true
			c.sum(line)
		}
	}
}

var (
	unittestLine   = regexp.MustCompile(`^(\w+) \(([\w.]+)\)(.*)$`)
	unittestRan    = regexp.MustCompile(`^Ran (\d+) tests? in `)
	unittestResult = regexp.MustCompile(`^(OK|FAILED)\b`)
)

// unittestStatus returns the status after " ... " on a -v line ("" when
// the test's own output came first), and whether the line had the dots.
func unittestStatus(rest string) (string, bool) {
	i := strings.LastIndex(rest, "... ")
	if i < 0 {
		return "", strings.HasSuffix(rest, "...")
	}
	st := strings.TrimSpace(rest[i+4:])
	if !isUnittestStatus(st) {
		st = ""
	}
	return st, true
}

// isUnittestStatus reports whether s is a status unittest's -v prints.
func isUnittestStatus(s string) bool {
	switch {
	case s == "ok", s == "FAIL", s == "ERROR", s == "expected failure", s == "unexpected success", strings.HasPrefix(s, "skipped"):
		return true
	}
	return false
}

// unittest reads unittest's -v lines ("test_add (pkg.mod.Case.test_add)
// ... ok"; before Python 3.11 the parentheses hold the class only; a
// docstring's first line may come between). A status that a test's own
// output pushed to a later line is read there. The run is complete when
// "Ran N tests" and then OK or FAILED were read.
func (c *collector) unittest(text string) {
	lines := strings.Split(text, "\n")
	ran := false
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r ")
		if m := unittestLine.FindStringSubmatch(line); m != nil {
			c.format = "unittest"
			id := m[2]
			if !strings.HasSuffix(id, "."+m[1]) {
				id += "." + m[1]
			}
			st, dots := unittestStatus(m[3])
			for j := i + 1; st == "" && j < len(lines) && j <= i+50; j++ {
				t := strings.TrimSpace(lines[j])
				if !dots {
					st, dots = unittestStatus(t)
					continue
				}
				if isUnittestStatus(t) {
					st = t
				}
			}
			switch {
			case st == "ok":
				c.set(id, "pass")
			case strings.HasPrefix(st, "skipped") || st == "expected failure":
				c.set(id, "skip")
			case st != "":
				c.set(id, "fail")
			}
			continue
		}
		if unittestRan.MatchString(line) {
			c.format = "unittest"
			ran = true
			c.sum(line)
			continue
		}
		if ran && unittestResult.MatchString(line) {
			c.completed = true
			c.sum(line)
		}
	}
}

var (
	cargoTest    = regexp.MustCompile(`^test (\S+) \.\.\. (ok|FAILED|ignored)\b`)
	cargoRunning = regexp.MustCompile(`^running (\d+) tests?$`)
	cargoResult  = regexp.MustCompile(`^test result: (ok|FAILED)\. `)
)

// cargo reads libtest's lines. Every test binary prints "running N
// tests" and, when it ends normally, "test result: …"; the run is
// complete when every binary that started printed its result.
func (c *collector) cargo(text string) {
	running, results := 0, 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := cargoTest.FindStringSubmatch(line); m != nil {
			c.format = "cargo"
			c.set(m[1], map[string]string{"ok": "pass", "FAILED": "fail", "ignored": "skip"}[m[2]])
			continue
		}
		if cargoRunning.MatchString(line) {
			c.format = "cargo"
			running++
			continue
		}
		if cargoResult.MatchString(line) {
			results++
			c.sum(line)
		}
	}
	c.completed = running > 0 && results == running
}

// jestResult is the part of jest's --json document (and vitest's json
// reporter, which follows it) that Read uses.
type jestResult struct {
	NumTotalTests *int `json:"numTotalTests"`
	Success       bool `json:"success"`
	TestResults   []struct {
		Name             string `json:"name"`
		AssertionResults []struct {
			FullName string `json:"fullName"`
			Title    string `json:"title"`
			Status   string `json:"status"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// jestJSON reads jest's --json document, which jest writes to stdout as
// one line among its other output. The run is complete when the whole
// document was read.
func (c *collector) jestJSON(text string) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") || !strings.Contains(line, `"numTotalTests"`) {
			continue
		}
		var r jestResult
		if json.Unmarshal([]byte(line), &r) != nil || r.NumTotalTests == nil {
			continue
		}
		c.format = "jest-json"
		for _, f := range r.TestResults {
			for _, a := range f.AssertionResults {
				name := a.FullName
				if name == "" {
					name = a.Title
				}
				switch a.Status {
				case "passed":
					c.set(name, "pass")
				case "failed":
					c.set(name, "fail")
				default:
					c.set(name, "skip")
				}
			}
		}
		c.completed = true
		c.sum("tests: " + strconv.Itoa(*r.NumTotalTests) + map[bool]string{true: ", success", false: ", failed"}[r.Success])
	}
}

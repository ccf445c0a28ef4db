package rerun

import (
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Evidence is what a test runner's own output shows of one run: the tests
// it saw pass, fail and skip, and whether it reached its normal end. An
// exit code proves nothing by itself (a test process can end early, skip
// its tests or never start them); Evidence is read from the runner's
// structured output, which [Plan.Proof] switches on.
type Evidence struct {
	// Runner is the runner's name (Plan.Runner).
	Runner string `json:"runner"`
	// Format names what was read: "go-test-json", "go-test-binary"
	// (a test binary's own framed output), "tap", "pytest",
	// "unittest", "jest-json", "junit-xml", "cargo"; "" when the output
	// held nothing structured.
	Format string `json:"format"`
	// Passed, Failed and Skipped are test names as the runner spells them,
	// sorted, each capped at maxEvidenceNames.
	Passed  []string `json:"passed,omitempty"`
	Failed  []string `json:"failed,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	// Completed says the runner's own normal end was read: its closing
	// summary, plan line or closing element, for every part of the run.
	Completed bool `json:"completed"`
	// Summary is the runner's own closing line(s), capped.
	Summary string `json:"summary,omitempty"`
	// Counts are the totals of a run that names no test, only counts
	// (Format "summary-line": a closing "N passed, N failed" line).
	Counts *Counts `json:"counts,omitempty"`
}

// Counts are a run's totals as its closing line states them.
type Counts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped,omitempty"`
}

// RunnerSummary is the runner name under which [Read] reads only a closing
// summary line, "N passed, N failed" (", N skipped" may follow, and one
// word with a colon may stand before it): what a project's own harness
// prints when no known runner runs its tests.
const RunnerSummary = "summary"

// Bounds of what Read takes in and gives back.
const (
	maxEvidenceInput = 64 << 20
	maxEvidenceNames = 10000
	maxEvidenceName  = 512
	maxSummary       = 600
	maxReportFiles   = 2000
	maxReportFile    = 16 << 20
)

// ansi matches the colour and cursor sequences a runner writes to a
// terminal (CSI sequences, and OSC ones ended by BEL or ST).
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)

// Read reads what a run's output proves, for the runner that ran it.
// reports, when not nil, is the workspace, for the report files a runner
// writes (Surefire's and Gradle's JUnit XML); only files modified at or
// after since count, so an earlier run's reports prove nothing. Read
// never fails: output it cannot read gives an Evidence whose Format is "".
func Read(runner string, output []byte, reports fs.FS, since time.Time) Evidence {
	if len(output) > maxEvidenceInput {
		output = output[len(output)-maxEvidenceInput:]
	}
	text := string(output)
	if strings.IndexByte(text, 0x1b) >= 0 {
		text = ansi.ReplaceAllString(text, "")
	}
	var c collector
	switch runner {
	case "go":
		c.goJSON(text)
	case "node", "mocha":
		c.tap(text)
	case "pytest":
		c.pytest(text)
	case "unittest":
		c.unittest(text)
	case "jest":
		c.jestJSON(text)
	case "vitest":
		if !c.junitText(text) {
			c.jestJSON(text)
		}
	case "cargo":
		c.cargo(text)
	case "maven", "gradle":
		c.junitFiles(reports, since, runner)
	case RunnerSummary:
		ev := summaryLine(text)
		ev.Runner = runner
		return ev
	}
	ev := c.evidence()
	ev.Runner = runner
	return ev
}

// ReadGoBinary reads what the output of go test binaries run with
// -test.v=test2json shows (see [Plan.BinaryProof]; binaries is how many
// ran, [BinaryRun.Binaries]): only the binaries' own framed lines count,
// never anything their tests print, whatever its form (a test that
// prints go test -json events proves nothing). The run is complete when
// every binary printed its closing line.
func ReadGoBinary(output []byte, binaries int) Evidence {
	if len(output) > maxEvidenceInput {
		output = output[len(output)-maxEvidenceInput:]
	}
	var c collector
	c.goFramed(string(output), binaries)
	ev := c.evidence()
	ev.Runner = "go"
	return ev
}

// summaryRE is the plain closing line any harness may print.
var summaryRE = regexp.MustCompile(`(?m)^\s*(?:[A-Za-z]+:\s*)?(\d{1,9}) passed, (\d{1,9}) failed(?:, (\d{1,9}) skipped)?\s*$`)

// summaryLine reads the last "N passed, N failed" line of text. Such a
// line holds " passed, ": only the lines that do are matched, last first,
// so a long log costs a search for that text, not an expression tried at
// every line.
func summaryLine(text string) Evidence {
	for rest := text; ; {
		i := strings.LastIndex(rest, " passed, ")
		if i < 0 {
			return Evidence{}
		}
		start := strings.LastIndexByte(rest[:i], '\n') + 1
		end := len(rest)
		if j := strings.IndexByte(rest[i:], '\n'); j >= 0 {
			end = i + j
		}
		if m := summaryRE.FindStringSubmatch(rest[start:end]); m != nil {
			n := func(s string) int { v, _ := strconv.Atoi(s); return v }
			return Evidence{Format: "summary-line", Completed: true, Summary: strings.TrimSpace(m[0]), Counts: &Counts{Passed: n(m[1]), Failed: n(m[2]), Skipped: n(m[3])}}
		}
		rest = rest[:start]
	}
}

// collector gathers one run's results.
type collector struct {
	format    string
	status    map[string]string // name -> "pass", "fail", "skip"
	order     []string
	completed bool
	summary   []string
}

func (c *collector) set(name, status string) {
	name = strings.TrimSpace(name)
	if name == "" {
		return
	}
	if len(name) > maxEvidenceName {
		name = name[:maxEvidenceName]
	}
	if c.status == nil {
		c.status = map[string]string{}
	}
	prev, seen := c.status[name]
	if !seen {
		if len(c.order) >= 3*maxEvidenceNames {
			return
		}
		c.order = append(c.order, name)
	}
	// A failure is never overwritten by a later pass of the same name (a
	// test of that name in another package or file failed).
	if prev == "fail" {
		return
	}
	c.status[name] = status
}

func (c *collector) sum(line string) {
	line = strings.TrimSpace(line)
	if line != "" && len(c.summary) < 20 {
		c.summary = append(c.summary, line)
	}
}

func (c *collector) evidence() Evidence {
	ev := Evidence{Format: c.format, Completed: c.completed && c.format != ""}
	for _, n := range c.order {
		switch c.status[n] {
		case "pass":
			ev.Passed = appendCapped(ev.Passed, n)
		case "fail":
			ev.Failed = appendCapped(ev.Failed, n)
		case "skip":
			ev.Skipped = appendCapped(ev.Skipped, n)
		}
	}
	sort.Strings(ev.Passed)
	sort.Strings(ev.Failed)
	sort.Strings(ev.Skipped)
	s := strings.Join(c.summary, " | ")
	if len(s) > maxSummary {
		s = s[:maxSummary] + "…"
	}
	ev.Summary = s
	return ev
}

func appendCapped(list []string, n string) []string {
	if len(list) >= maxEvidenceNames {
		return list
	}
	return append(list, n)
}

// canon spells a test name one way across runners and reports: node-id,
// Maven and path separators become dots, a Python module's ".py" goes,
// jest's and vitest's title separators become spaces.
func canon(name string) string {
	name = strings.TrimSpace(name)
	name = strings.ReplaceAll(name, " › ", " ")
	name = strings.ReplaceAll(name, " > ", " ")
	name = strings.ReplaceAll(name, ".py::", "::")
	name = strings.ReplaceAll(name, "::", ".")
	name = strings.ReplaceAll(name, "#", ".")
	name = strings.ReplaceAll(name, "/", ".")
	return name
}

// matches reports whether the evidence name ev is the test a plan names
// as want: the same name, or a longer one that ends with it at a
// separator (a JUnit class and method for Maven's Class#method, a full
// unittest id for Class.method).
func matches(want, ev string) bool {
	w, e := canon(want), canon(ev)
	return w != "" && (e == w || strings.HasSuffix(e, "."+w) || strings.HasSuffix(e, " "+w))
}

// findIn returns the names of list that match want.
func findIn(list []string, want string) []string {
	var out []string
	for _, n := range list {
		if matches(want, n) {
			out = append(out, n)
		}
	}
	return out
}

// goTop is a Go test's top-level name.
func goTop(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// Proves says whether after proves that the tests failing names (as
// Plan.Tests spells them) now pass: after was read from the runner's own
// output; it reached its normal end; every one of failing ran and passed
// (none of its names failed or was skipped); and every test seen in
// before (the re-run of the failing tests before any fix) was seen again.
// why says, for a person, what is missing when ok is false.
func Proves(failing []string, before, after Evidence) (ok bool, why string) {
	if after.Format == "" {
		return false, "the test runner's output holds no structured results salve can read, so nothing shows the failing tests passing"
	}
	if !after.Completed {
		return false, "the test runner did not reach its normal end (no closing summary in its " + after.Format + " output): the run stopped early"
	}
	if after.Counts != nil {
		return provesCounts(before, after)
	}
	if len(failing) == 0 {
		return false, "no failing test was named, so there is nothing to prove passing"
	}
	var notRun, stillFail, skipped []string
	for _, t := range failing {
		if after.Runner == "go" {
			t = goTop(t)
		}
		switch {
		case len(findIn(after.Failed, t)) > 0:
			stillFail = append(stillFail, t)
		case len(findIn(after.Passed, t)) > 0:
		case len(findIn(after.Skipped, t)) > 0:
			skipped = append(skipped, t)
		default:
			notRun = append(notRun, t)
		}
	}
	switch {
	case len(stillFail) > 0:
		return false, "the runner shows still failing: " + capList(stillFail)
	case len(skipped) > 0:
		return false, "the runner shows skipped, not passed: " + capList(skipped)
	case len(notRun) > 0:
		return false, "the runner's output does not show these tests running to a pass: " + capList(notRun)
	}
	seen := map[string]bool{}
	for _, l := range [][]string{after.Passed, after.Failed, after.Skipped} {
		for _, n := range l {
			seen[canon(n)] = true
		}
	}
	var missing []string
	for _, l := range [][]string{before.Passed, before.Failed} {
		for _, n := range l {
			if !seen[canon(n)] {
				missing = append(missing, n)
			}
		}
	}
	if len(missing) > 0 {
		return false, "tests that ran before the fix are missing after it: " + capList(missing)
	}
	return true, ""
}

// Shows reports whether ev, read from a run that failed or passed,
// shows every one of tests (as [Proves] matches them) passed or failed,
// and, for a run that passed, the runner reaching its end. A Go test
// binary that panics ends without the closing line go test adds for it,
// so a failed run is not held to its end: the tests it shows are what
// go test would show.
func Shows(tests []string, failed bool, ev Evidence) bool {
	if len(tests) == 0 || (!failed && !ev.Completed) {
		return false
	}
	for _, t := range tests {
		if ev.Runner == "go" {
			t = goTop(t)
		}
		if len(findIn(ev.Passed, t)) == 0 && len(findIn(ev.Failed, t)) == 0 {
			return false
		}
	}
	return true
}

// capList names a few items and counts the rest.
func capList(names []string) string {
	const show = 5
	if len(names) > show {
		return strings.Join(names[:show], ", ") + " and " + strconv.Itoa(len(names)-show) + " more"
	}
	return strings.Join(names, ", ")
}

// provesCounts judges a run that gives only totals: nothing fails, and at
// least as many tests pass as ran before (passed or failed).
func provesCounts(before, after Evidence) (bool, string) {
	c := after.Counts
	if c.Failed > 0 {
		return false, "the runner's summary says " + strconv.Itoa(c.Failed) + " still fail"
	}
	if c.Passed == 0 {
		return false, "the runner's summary says no test passed"
	}
	if b := before.Counts; b != nil && c.Passed < b.Passed+b.Failed {
		return false, "fewer tests passed (" + strconv.Itoa(c.Passed) + ") than ran before the fix (" + strconv.Itoa(b.Passed+b.Failed) + "): some did not run"
	}
	return true, ""
}

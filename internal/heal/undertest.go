package heal

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lang"
)

// TargetFinder finds the code a failing test exercises, with the
// language's own tooling where there is one.
type TargetFinder interface {
	// Regions returns the regions bug, a failing check in a test file of
	// workspace, points at, best first; none is an answer, not an error.
	Regions(ctx context.Context, workspace string, bug contract.BugReport) ([]undertest.Region, error)
	// TestSource returns the failing test's own source, numbered.
	TestSource(ctx context.Context, workspace string, bug contract.BugReport) (string, error)
}

// underTest is where a failing test's fix goes: the code the test
// exercises rather than the test itself (see docs/heal.md, "The code
// under test").
type underTest struct {
	// regions of one non-test file, best first.
	regions []undertest.Region
	// context is the failing test's own source, numbered: shown to the
	// fixer as read-only context.
	context string
}

// isTestFailure reports whether a file group is a failing check inside a
// test file: a fix there would edit the test, so its fix goes to the code
// under test instead.
func isTestFailure(group []contract.BugReport) bool {
	if !lang.IsTestFile(group[0].FilePath) {
		return false
	}
	for _, b := range group {
		if b.ErrorType == contract.ErrLogic {
			return true
		}
	}
	return false
}

// resolveUnderTest finds the code a failing test exercises: the stack
// frames in non-test files, else the functions the test calls, resolved
// with the language's own tooling. It returns nil when it finds none, and
// the group then goes to the fixers as it is (where the integrity rules
// keep them from weakening the test).
func resolveUnderTest(ctx context.Context, ws string, targets TargetFinder, logger *slog.Logger, group []contract.BugReport) *underTest {
	var bug contract.BugReport
	for _, b := range group {
		if b.ErrorType == contract.ErrLogic {
			bug = b
			break
		}
	}
	regions, err := targets.Regions(ctx, ws, bug)
	if err != nil || len(regions) == 0 {
		logger.Info("no code under test found for a failing test", "path", bug.FilePath, "line", bug.LineNumber, "error", err)
		return nil
	}
	// One file is fixed at a time: keep the best region's file.
	var keep []undertest.Region
	for _, rg := range regions {
		if rg.Path == regions[0].Path {
			keep = append(keep, rg)
		}
	}
	tc, err := targets.TestSource(ctx, ws, bug)
	if err != nil {
		logger.Info("the failing test's source could not be read", "path", bug.FilePath, "error", err)
	}
	logger.Info("a failing test's fix goes to the code under test", "test", bug.FilePath, "code", keep[0].String())
	return &underTest{regions: keep, context: tc}
}

// path is the file the fix goes to.
func (u *underTest) path() string { return u.regions[0].Path }

// windows are the lines of the code under test a fix may change.
func (u *underTest) windows() []LineRange {
	out := make([]LineRange, len(u.regions))
	for i, rg := range u.regions {
		out[i] = LineRange{Start: rg.Start, End: rg.End}
	}
	return out
}

// maxReachedShown bounds the lines of the functions reached through the
// code under test that the request shows: the window has them all, the
// snippet the nearest.
const maxReachedShown = 200

// shown are the windows the request's snippet shows: the code the test
// calls, and the functions it reaches in turn up to maxReachedShown lines.
func (u *underTest) shown() []LineRange {
	var out []LineRange
	budget := maxReachedShown
	for _, rg := range u.regions {
		n := rg.End - rg.Start + 1
		if rg.Reached && n > budget {
			continue
		}
		if rg.Reached {
			budget -= n
		}
		out = append(out, LineRange{Start: rg.Start, End: rg.End})
	}
	return out
}

// request builds the FixRequest for the code under test: the failing
// test's report restated at the code's first line, the code's regions as
// the snippet, and the test as read-only context in the message.
func (u *underTest) request(group []contract.BugReport, content string, prev map[string]any) contract.FixRequest {
	rg := u.regions[0]
	primary := group[0]
	for _, b := range group {
		if b.ErrorType == contract.ErrLogic {
			primary = b
			break
		}
	}
	msgs := make([]string, len(group))
	for i, b := range group {
		msgs[i] = b.Message
	}
	moved := primary
	moved.FilePath, moved.LineNumber, moved.Column = rg.Path, rg.Start, 0
	moved.Message = fmt.Sprintf("%s\n(the failing check is at %s:%d; the code under test is %s, lines %d-%d of %s, found from %s)",
		primary.Message, primary.FilePath, primary.LineNumber, rg.Symbol, rg.Start, rg.End, rg.Path, rg.Why)
	msg := strings.Join(msgs, "\n")
	if u.context != "" {
		msg += "\n\nThe failing test, read-only (fix the code under test, never the test):\n" + u.context
	}
	return contract.FixRequest{
		BugReport:           moved,
		FileSnippet:         snippetRanges(content, u.shown()),
		ErrorMessage:        msg,
		PreviousAttemptInfo: prev,
	}
}

// maxTestSources bounds the failing tests' files a fix is judged against.
const maxTestSources = 8

// failingTests reads the files of the failing checks in group, with the
// names of the failing tests in each, for the integrity rules that judge
// an edit of the code under test against the test. A file that cannot be
// read safely is left out.
func failingTests(ws string, group []contract.BugReport) []integrity.TestSource {
	var out []integrity.TestSource
	at := map[string]int{}
	for _, b := range group {
		if b.ErrorType != contract.ErrLogic || !lang.IsTestFile(b.FilePath) {
			continue
		}
		i, ok := at[b.FilePath]
		if !ok {
			if len(out) == maxTestSources {
				continue
			}
			abs, err := confine(ws, b.FilePath)
			if err != nil {
				continue
			}
			content, err := readSource(abs)
			if err != nil {
				continue
			}
			i = len(out)
			at[b.FilePath] = i
			out = append(out, integrity.TestSource{Path: b.FilePath, Content: content})
		}
		if b.TestName != nil && *b.TestName != "" && !slices.Contains(out[i].Names, *b.TestName) {
			out[i].Names = append(out[i].Names, *b.TestName)
		}
	}
	return out
}

// runtimeWindows returns the functions around the failing checks of a
// group reported in code, not in a test (a runtime error, an exception
// thrown where the code went wrong): the fix of such an error belongs
// anywhere in the function the program failed in, not only within three
// lines of where it stopped.
func runtimeWindows(ctx context.Context, ws string, targets TargetFinder, group []contract.BugReport) ([]LineRange, []integrity.TestSource) {
	var out []LineRange
	var tests []integrity.TestSource
	for _, b := range group {
		if b.ErrorType != contract.ErrLogic || lang.IsTestFile(b.FilePath) {
			continue
		}
		regions, err := targets.Regions(ctx, ws, b)
		if err != nil {
			continue
		}
		for _, rg := range regions {
			if rg.Path == group[0].FilePath && rg.Start <= b.LineNumber && b.LineNumber <= rg.End {
				out = append(out, LineRange{Start: rg.Start, End: rg.End})
				if tests == nil {
					tests = testsCalling(ctx, ws, rg.Path, lastName(rg.Symbol))
				}
				break
			}
		}
	}
	return out, tests
}

// lastName is the last identifier of a qualified symbol ("calc.(*T).Add"
// gives "Add").
func lastName(symbol string) string {
	if i := strings.LastIndexAny(symbol, ".:)"); i >= 0 {
		symbol = symbol[i+1:]
	}
	return strings.TrimSpace(symbol)
}

// Bounds of the search for the tests that exercise a function.
const (
	maxTestScan     = 3000
	maxTestScanSize = 1 << 20
)

// skipScan are folders the searches of a workspace never enter.
var skipScan = map[string]bool{".git": true, "node_modules": true, "vendor": true, "target": true, "build": true, "dist": true,
	"__pycache__": true, ".venv": true, "venv": true, ".tox": true, "out": true}

// SkipFolder reports whether a bounded search of a workspace (for the
// tests that call a function, for declarations, the agent tier's search)
// leaves out a folder of this name: a hidden folder (.git first), a
// dependency folder, build output, a virtual environment.
func SkipFolder(name string) bool { return skipScan[name] || strings.HasPrefix(name, ".") }

// testsCalling returns the test files of the workspace, in the language
// of path, that call symbol: the tests a runtime error in that function
// was reached from, for the integrity rules to judge a fix against (the
// literals they feed in, the names they read). The walk is bounded and
// never follows a symlink.
func testsCalling(ctx context.Context, ws, path, symbol string) []integrity.TestSource {
	l := lang.Of(path)
	if l == nil || symbol == "" {
		return nil
	}
	call := regexp.MustCompile(`\b` + regexp.QuoteMeta(symbol) + `\s*\(`)
	var out []integrity.TestSource
	n := 0
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil || len(out) >= maxTestSources {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != ws && SkipFolder(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > maxTestScan {
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(ws, p)
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if lang.Of(rel) != l || !lang.IsTestFile(rel) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxTestScanSize {
			return nil
		}
		content, err := readSource(p)
		if err != nil || !call.MatchString(content) {
			return nil
		}
		out = append(out, integrity.TestSource{Path: rel, Content: content})
		return nil
	})
	return out
}

package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/sandbox"
)

// Checker type-checks the file at path (repository-relative, forward
// slashes) of the worktree at workspace as if it held content, without
// writing it, and returns the lines of that file the toolchain reports an
// error on. It returns an error when it has no verdict to give: no
// toolchain for the file's language, a run that could not start or timed
// out.
type Checker func(ctx context.Context, workspace, path, content string) (map[int]bool, error)

// ErrNoChecker is wrapped by a Checker that has no type check for a file.
var ErrNoChecker = errors.New("no type check for this language")

// checkTimeout bounds one type check.
const checkTimeout = 2 * time.Minute

// reGoError is one error line of the Go toolchain: "./a.go:3:14: msg".
var reGoError = lazyre.New(`(?m)^(\S[^:\n]*\.go):(\d+)(?::\d+)?: `)

// GoCheck returns a Checker for Go files: it compiles the file's package
// and its tests with `go test -run ^$ -vet=off -gcflags=-e` (every type
// error, none cut at ten), the file's content given through go's
// -overlay, so nothing in the worktree changes and no test runs. env is
// the toolchain's environment; nil means sandbox.AllowedEnv(). Files of
// other languages get an error wrapping [ErrNoChecker].
func GoCheck(env []string) Checker {
	return func(ctx context.Context, workspace, p, content string) (map[int]bool, error) {
		if path.Ext(p) != ".go" {
			return nil, fmt.Errorf("%s: %w", p, ErrNoChecker)
		}
		e := env
		if e == nil {
			e = sandbox.AllowedEnv()
		}
		goBin := sandbox.LookPath("go", e)
		if goBin == "" {
			return nil, fmt.Errorf("go is not on the PATH: %w", ErrNoChecker)
		}
		target := filepath.Join(workspace, filepath.FromSlash(p))
		tmp, err := os.MkdirTemp("", "salve-typecheck-")
		if err != nil {
			return nil, fmt.Errorf("type check: %w", err)
		}
		defer os.RemoveAll(tmp)
		file := filepath.Join(tmp, filepath.Base(target))
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			return nil, fmt.Errorf("type check: %w", err)
		}
		ov, err := json.Marshal(map[string]map[string]string{"Replace": {target: file}})
		if err != nil {
			return nil, fmt.Errorf("type check: %w", err)
		}
		overlay := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(overlay, ov, 0o600); err != nil {
			return nil, fmt.Errorf("type check: %w", err)
		}
		dir := filepath.Dir(target)
		res, err := sandbox.Run(ctx, sandbox.Cmd{Path: goBin, Dir: dir, Env: e, Timeout: checkTimeout, MaxOutput: 1 << 20, Combined: true,
			Args: []string{"test", "-count=1", "-run", "^$", "-vet=off", "-gcflags=-e", "-overlay=" + overlay, "."}})
		switch {
		case err != nil:
			return nil, fmt.Errorf("type check: %w", err)
		case res.TimedOut || res.Signal != "":
			return nil, errors.New("type check: go test did not finish")
		}
		lines := map[int]bool{}
		for _, m := range reGoError.FindAllStringSubmatch(string(res.Stdout)+string(res.Stderr), -1) {
			f := m[1]
			if !filepath.IsAbs(f) {
				f = filepath.Join(dir, f)
			}
			// The compiler names the overlay's file by the path of its
			// replacement.
			if n, err := strconv.Atoi(m[2]); err == nil && (filepath.Clean(f) == target || filepath.Clean(f) == file) {
				lines[n] = true
			}
		}
		return lines, nil
	}
}

// change returns the argument change of the missed calls of fn: the
// commit's one change, or the one of its candidates that type-checks at
// the file's reported calls ([planner.choose]).
func (pl *planner) change(fn string) (ArgChange, error) {
	if c, ok := pl.chosen[fn]; ok {
		return c.ch, c.err
	}
	ch, err := pl.choose(fn)
	pl.chosen[fn] = choice{ch, err}
	return ch, err
}

// choose tries each argument the commit's calls of fn insert at every
// reported call of fn in the file that has the old number of arguments,
// and returns the one after which the type check reports none of those
// calls' lines. The check must first report every one of them as the file
// is (it sees the calls); anything else declines.
func (pl *planner) choose(fn string) (ArgChange, error) {
	cands, err := pl.ev.candidates(fn)
	if err != nil {
		return ArgChange{}, err
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	what := fmt.Sprintf("the commit's calls of %s disagree: they insert %s", fn, texts(cands))
	if pl.check == nil {
		return ArgChange{}, fmt.Errorf("%s, and no type check can choose", what)
	}
	cs := pl.reportedCalls(fn, cands[0].Before)
	if len(cs) == 0 {
		return ArgChange{}, fmt.Errorf("%s, and no reported line calls it with %d arguments", what, cands[0].Before)
	}
	base, err := pl.check(pl.ctx, pl.in.Workspace, pl.in.Path, pl.in.Content)
	if err != nil {
		return ArgChange{}, fmt.Errorf("%s, and the type check gave no verdict: %v", what, err)
	}
	for _, c := range cs {
		if !pl.reports(base, c) {
			return ArgChange{}, fmt.Errorf("%s, and the type check does not report the call on line %d", what, lineOf(pl.in.Content, c.nameAt))
		}
	}
	var ok []ArgChange
	for _, ch := range cands {
		out, err := applyCalls(pl.in.Content, cs, ch)
		if err != nil {
			continue
		}
		errs, err := pl.check(pl.ctx, pl.in.Workspace, pl.in.Path, out)
		if err != nil {
			return ArgChange{}, fmt.Errorf("%s, and the type check gave no verdict: %v", what, err)
		}
		clean := true
		for _, c := range cs {
			clean = clean && !pl.reports(errs, c)
		}
		if clean {
			ok = append(ok, ch)
		}
	}
	if len(ok) != 1 {
		return ArgChange{}, fmt.Errorf("%s, and %d of them type-check at the call site, want 1", what, len(ok))
	}
	return ok[0], nil
}

// reportedCalls returns the calls of fn (or of its old name) with before
// arguments that span a reported line.
func (pl *planner) reportedCalls(fn string, before int) []call {
	var out []call
	seen := map[int]bool{}
	for _, n := range pl.reported {
		ln, ok := lineSpan(pl.in.Content, n)
		if !ok {
			continue
		}
		for _, c := range pl.lineCalls(ln) {
			if !seen[c.nameAt] && pl.target(c.name) == fn && len(c.args) == before {
				seen[c.nameAt] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// reports reports whether errs holds a line that call c spans.
func (pl *planner) reports(errs map[int]bool, c call) bool {
	for n := lineOf(pl.in.Content, c.nameAt); n <= lineOf(pl.in.Content, c.close); n++ {
		if errs[n] {
			return true
		}
	}
	return false
}

// lineOf returns the 1-based line of offset at of src.
func lineOf(src string, at int) int {
	return strings.Count(src[:min(at, len(src))], "\n") + 1
}

// texts quotes the arguments of cs, for messages.
func texts(cs []ArgChange) string {
	q := make([]string, len(cs))
	for i, c := range cs {
		q[i] = strconv.Quote(c.Text)
	}
	return strings.Join(q, ", ")
}

// Package history is the Fix Agent's "history" tier: it finishes the
// change of the commit that broke the build. A commit often renames a
// function, type or macro, or gives a function another parameter, and
// updates most uses but not all; the build then fails where the old name
// or the old number of arguments is left. The commit's own diff holds the
// fix: the same rename, or the same argument inserted or removed, that it
// made elsewhere.
//
// The tier reads the diff (through an injected function: it never runs
// git), finds the renamed declarations and the changed call sites of the
// reports' language family, and for each report of a missing name or a
// wrong number of arguments applies the matching change on the reported
// line. It acts only on corroborated evidence: a rename needs the renamed
// declaration and at least one reference the commit renamed the same
// way; an argument change needs the function's changed declaration and
// call sites the commit updated, all in the same way. Anything else is
// declined with its reason.
package history

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/heal"
)

// Name is the tier's name in results and --fixers.
const Name = "history"

// Confidence is the confidence of a fix the diff corroborates.
const Confidence = 0.9

// MaxContent is the largest file the tier edits.
const MaxContent = 4 << 20

// maxReports bounds the reports of one file the tier reads.
const maxReports = 200

// maxCached bounds the workspaces whose diff a Fixer keeps.
const maxCached = 16

// Fixer is the history tier. Its zero value has no diff to read, and
// every Fix fails with an error wrapping heal.ErrNotConfigured.
type Fixer struct {
	// Diff returns the unified diff of the commit that broke the build in
	// the heal worktree at workspace: the changes of that commit against
	// its first parent, as `git show --format= <commit>` prints them. It
	// is called on the first Fix of a workspace (by each of concurrent
	// first calls); the result, or its error, is kept for the Fixer's
	// life.
	Diff func(ctx context.Context, workspace string) (string, error)

	mu    sync.Mutex
	cache map[string]*parsed
}

// parsed is one workspace's diff, read, and its evidence per family.
type parsed struct {
	files []File
	err   error
	ev    map[family]*Evidence
}

var _ heal.Fixer = (*Fixer)(nil)

// Name returns "history".
func (f *Fixer) Name() string { return Name }

// Fix applies, for each report of the group that names a missing name or
// a wrong number of arguments, the rename or argument change the diff
// shows for it. It returns an error wrapping heal.ErrNoFix, with the
// reasons, when no report can be fixed so.
func (f *Fixer) Fix(ctx context.Context, in heal.FixInput) (contract.FixResult, error) {
	fam := familyOf(in.Path)
	if fam == "" {
		return contract.FixResult{}, fmt.Errorf("history: %s is in no language the tier knows: %w", in.Path, heal.ErrNoFix)
	}
	if len(in.Content) > MaxContent {
		return contract.FixResult{}, fmt.Errorf("history: %s is larger than %d bytes: %w", in.Path, MaxContent, heal.ErrNoFix)
	}
	ev, err := f.evidence(ctx, in.Workspace, in.Path)
	if err != nil {
		return contract.FixResult{}, err
	}
	return Plan(in, ev)
}

// evidence returns the evidence of workspace's diff for the family of the
// file at target, reading the diff on first use.
func (f *Fixer) evidence(ctx context.Context, workspace, target string) (*Evidence, error) {
	if f.Diff == nil {
		return nil, fmt.Errorf("history: no source of the breaking commit's diff: %w", heal.ErrNotConfigured)
	}
	f.mu.Lock()
	p := f.cache[workspace]
	f.mu.Unlock()
	if p == nil {
		text, err := f.Diff(ctx, workspace)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("history: %w", ctx.Err())
		}
		p = &parsed{err: err, ev: map[family]*Evidence{}}
		if err == nil {
			p.files, p.err = ParseDiff(text)
		}
		f.mu.Lock()
		if f.cache == nil || len(f.cache) >= maxCached {
			f.cache = map[string]*parsed{}
		}
		f.cache[workspace] = p
		f.mu.Unlock()
	}
	if p.err != nil {
		return nil, fmt.Errorf("history: the diff of the commit that broke the build: %v: %w", p.err, heal.ErrNoFix)
	}
	fam := familyOf(target)
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := p.ev[fam]
	if ev == nil {
		ev = Analyze(p.files, target)
		p.ev[fam] = ev
	}
	return ev, nil
}

// Plan is the tier without its diff source: it fixes the reports of in
// with the evidence ev (see [Analyze]).
func Plan(in heal.FixInput, ev *Evidence) (contract.FixResult, error) {
	if ev.Truncated {
		return contract.FixResult{}, fmt.Errorf("history: the breaking commit's diff is too large to read whole: %w", heal.ErrNoFix)
	}
	fam := familyOf(in.Path)
	m := mask(in.Content, in.Path)
	var edits []edit
	var done, why []string
	seen := map[string]bool{}
	reports := in.Reports()
	if len(reports) > maxReports {
		reports = reports[:maxReports]
	}
	for _, r := range reports {
		if r.FilePath != "" && r.FilePath != in.Path {
			continue
		}
		a, ok := askOf(r)
		if !ok {
			continue
		}
		key := fmt.Sprint(r.LineNumber, a.need, a.name)
		if seen[key] {
			continue
		}
		seen[key] = true
		var es []edit
		var what string
		var err error
		switch a.need {
		case needName:
			es, what, err = renameEdits(in, m, fam, ev, r.LineNumber, a.name)
		case needArity:
			es, what, err = arityEdits(in.Content, m, ev, r.LineNumber, a.name)
		}
		if err != nil {
			why = append(why, fmt.Sprintf("line %d: %v", r.LineNumber, err))
			continue
		}
		edits = append(edits, es...)
		done = append(done, fmt.Sprintf("line %d: %s", r.LineNumber, what))
	}
	if len(edits) == 0 {
		if len(why) == 0 {
			why = []string{"no report of a missing name or a wrong number of arguments"}
		}
		return contract.FixResult{}, fmt.Errorf("history: %s: %s: %w", in.Path, strings.Join(why, "; "), heal.ErrNoFix)
	}
	out, err := applyEdits(in.Content, edits)
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("history: %s: %v: %w", in.Path, err, heal.ErrNoFix)
	}
	if out == in.Content {
		return contract.FixResult{}, fmt.Errorf("history: the changes leave %s as it was: %w", in.Path, heal.ErrNoFix)
	}
	return contract.FixResult{PatchedContent: out, FixReason: "as the breaking commit did elsewhere: " + strings.Join(done, "; "), ConfidenceScore: Confidence, Fixer: Name}, nil
}

// errNoEvidence is wrapped by a report the diff says nothing about.
var errNoEvidence = errors.New("the breaking commit shows no such change")

// renameEdits renames old on line n, when the diff corroborates a rename
// of it.
func renameEdits(in heal.FixInput, m string, fam family, ev *Evidence, n int, old string) ([]edit, string, error) {
	if why, bad := ev.Conflicts[old]; bad {
		return nil, "", errors.New(why)
	}
	r := ev.Renames[old]
	switch {
	case r == nil:
		return nil, "", fmt.Errorf("%s: %w", old, errNoEvidence)
	case r.Declared == 0:
		return nil, "", fmt.Errorf("the commit replaces %s by %s but renames no declaration of it", old, r.New)
	case r.References == 0:
		return nil, "", fmt.Errorf("the commit renames the declaration %s to %s but no use of it: no corroboration", old, r.New)
	case ev.Declared[old]:
		return nil, "", fmt.Errorf("the commit still declares %s", old)
	case declares(in.Content, in.Path, fam, old):
		return nil, "", fmt.Errorf("%s declares %s itself", in.Path, old)
	}
	ln, ok := lineSpan(in.Content, n)
	if !ok {
		return nil, "", fmt.Errorf("no line %d", n)
	}
	var es []edit
	for _, t := range tokens(m[ln.start:ln.end], "") {
		if t.text == old {
			es = append(es, edit{ln.start + t.start, ln.start + t.end, r.New})
		}
	}
	if len(es) == 0 {
		return nil, "", fmt.Errorf("%s is not on the line", old)
	}
	return es, fmt.Sprintf("%s renamed to %s (the commit renamed its declaration and %d use(s))", old, r.New, r.References), nil
}

// arityEdits changes the calls on line n of name (of any function with a
// signature change in the diff, when the message names none) as the
// commit changed its other calls.
func arityEdits(src, m string, ev *Evidence, n int, name string) ([]edit, string, error) {
	ln, ok := lineSpan(src, n)
	if !ok {
		return nil, "", fmt.Errorf("no line %d", n)
	}
	names := []string{name}
	if name == "" {
		names = nil
		for fn := range ev.Signatures {
			if len(callsOnLine(m, fn, ln)) > 0 {
				names = append(names, fn)
			}
		}
		sort.Strings(names)
		if len(names) != 1 {
			return nil, "", fmt.Errorf("the line calls %d functions whose calls the commit changed, want 1", len(names))
		}
	}
	fn := names[0]
	ch, err := ev.change(fn)
	if err != nil {
		return nil, "", err
	}
	var es []edit
	for _, c := range callsOnLine(m, fn, ln) {
		if len(c.args) != ch.Before {
			continue
		}
		e, err := callEdit(src, c, ch)
		if err != nil {
			return nil, "", err
		}
		es = append(es, e)
	}
	if len(es) == 0 {
		return nil, "", fmt.Errorf("no call of %s with %d arguments on the line", fn, ch.Before)
	}
	return es, fmt.Sprintf("%s in the call of %s (as in %d call(s) the commit updated)", ch, fn, len(ev.Signatures[fn].Sites)), nil
}

// callsOnLine returns the calls of fn in masked text m that span line ln.
func callsOnLine(m, fn string, ln span) []call {
	// A call that spans the line starts at most maxCallBytes before it.
	from := max(0, ln.start-maxCallBytes)
	var out []call
	for _, c := range calls(m[from:min(len(m), ln.end+maxCallBytes)], fn) {
		start, end := from+c.nameAt, from+c.close
		if start <= ln.end && end >= ln.start {
			out = append(out, shift(c, from))
		}
	}
	return out
}

// shift moves a call's offsets by d.
func shift(c call, d int) call {
	c.nameAt += d
	c.open += d
	c.close += d
	args := make([]span, len(c.args))
	for i, a := range c.args {
		args[i] = span{a.start + d, a.end + d}
	}
	c.args = args
	return c
}

// change returns the one argument change the diff shows for fn's calls,
// when its declaration changed by as many parameters and every updated
// call site agrees.
func (ev *Evidence) change(fn string) (ArgChange, error) {
	s := ev.Signatures[fn]
	if s == nil {
		return ArgChange{}, fmt.Errorf("%s: %w", fn, errNoEvidence)
	}
	if len(s.Sites) == 0 {
		return ArgChange{}, fmt.Errorf("the commit changes the parameters of %s but no call of it", fn)
	}
	if len(s.Deltas) == 0 {
		return ArgChange{}, fmt.Errorf("the commit changes calls of %s but not its declaration", fn)
	}
	ch := s.Sites[0]
	for _, c := range s.Sites[1:] {
		if !c.same(ch) {
			return ArgChange{}, fmt.Errorf("the commit's calls of %s disagree: %s, and %s", fn, ch, c)
		}
	}
	for _, d := range s.Deltas {
		if d != ch.Delta {
			return ArgChange{}, fmt.Errorf("the declaration of %s changes by %d parameter(s), its calls by %d argument(s)", fn, d, ch.Delta)
		}
	}
	return ch, nil
}

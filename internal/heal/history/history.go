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
// way (for Java, javac's own "symbol:" line may stand for the reference:
// the kind of what javac misses, a class, method or variable, fits the
// kind of the declaration renamed, and the commit added no other
// declaration of that kind in that file that the old name could have
// become); an argument change needs the function's changed declaration
// and call sites the commit updated, all in the same way. Anything else
// is declined with its reason.
package history

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/lang"
)

// Name is the tier's name in results and --fixers.
const Name = "history"

// Confidence is the confidence of a fix the diff corroborates.
const Confidence = 0.9

// MaxContent is the largest file the tier edits.
const MaxContent = 4 << 20

// maxReports bounds the reports of one file the tier reads.
const maxReports = 200

// maxCached bounds the diffs (of a workspace and a commit) a Fixer keeps.
const maxCached = 32

// MaxDepth is how many commits the tier reads, from the one the heal
// started from back along first parents, for the change a report's line
// did not follow: the commit that broke the build is often not the last
// one (a changelog or an unrelated commit came after it). The newest
// commit whose change covers the reports is used.
const MaxDepth = 8

// Fixer is the history tier. Its zero value has no diff to read, and
// every Fix fails with an error wrapping heal.ErrNotConfigured.
type Fixer struct {
	// Diff returns the unified diff of base, the commit that broke the
	// build (heal.FixInput.Base), in the heal worktree at workspace: the
	// changes of that commit against its first parent, as `git show
	// --format= <commit>` prints them. It is called on the first Fix of a
	// workspace and base (by each of concurrent first calls); the result,
	// or its error, is kept for the Fixer's life.
	Diff func(ctx context.Context, workspace, base string) (string, error)
	// Check type-checks a file with other content, to choose among the
	// arguments the commit's calls disagree on (see [Checker]). Nil means
	// [GoCheck] with the environment of sandbox.AllowedEnv.
	Check Checker

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
		return contract.FixResult{}, fmt.Errorf("history: %s is in no language the tier knows: %w", in.Path, results.ErrNoFix)
	}
	if len(in.Content) > MaxContent {
		return contract.FixResult{}, fmt.Errorf("history: %s is larger than %d bytes: %w", in.Path, MaxContent, results.ErrNoFix)
	}
	check := f.Check
	if check == nil {
		check = GoCheck(nil)
	}
	var first error
	for depth := 0; depth < MaxDepth; depth++ {
		ref := in.Base
		if depth > 0 {
			ref = fmt.Sprintf("%s~%d", in.Base, depth)
		}
		ev, err := f.evidence(ctx, in.Workspace, ref, in.Path)
		if err != nil {
			if depth == 0 {
				return contract.FixResult{}, err
			}
			break // no older commit, or one whose diff cannot be read
		}
		res, err := PlanChecked(ctx, in, ev, check)
		switch {
		case err == nil && depth > 0:
			res.FixReason = fmt.Sprintf("%s (in the change of %s, %d commit(s) before the one the heal started from)", res.FixReason, ref, depth)
			return res, nil
		case err == nil:
			return res, nil
		case !errors.Is(err, results.ErrNoFix) || ctx.Err() != nil:
			return contract.FixResult{}, err
		case first == nil:
			first = err
		}
	}
	return contract.FixResult{}, first
}

// evidence returns the evidence of workspace's diff for the family of the
// file at target, reading the diff on first use.
func (f *Fixer) evidence(ctx context.Context, workspace, base, target string) (*Evidence, error) {
	if f.Diff == nil {
		return nil, fmt.Errorf("history: no source of the breaking commit's diff: %w", results.ErrNotConfigured)
	}
	f.mu.Lock()
	key := workspace + "\x00" + base
	p := f.cache[key]
	f.mu.Unlock()
	if p == nil {
		text, err := f.Diff(ctx, workspace, base)
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
		f.cache[key] = p
		f.mu.Unlock()
	}
	if p.err != nil {
		return nil, fmt.Errorf("history: no change of the breaking commit to learn from (%s): %w", diffFailure(p.err), results.ErrNoFix)
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
//
// A report qualifies its line when the evidence covers what it names: a
// corroborated rename of the missing name, or a call of the named
// function (of the one function of the line whose calls changed, when the
// message names none) with the old number of arguments. On a qualified
// line every corroborated change applies, so that the line's slips are
// fixed together (an interpreter reports one at a time, without a column,
// and a fix that uncovers the next on its own line looks like a breakage);
// a renamed name is renamed on the file's import lines too.
//
// Plan declines a call whose commit's calls disagree on the argument;
// [PlanChecked] chooses among them with a type check.
func Plan(in heal.FixInput, ev *Evidence) (contract.FixResult, error) {
	return PlanChecked(context.Background(), in, ev, nil)
}

// PlanChecked is [Plan] with a type check: when the commit's calls of a
// function insert different arguments at the same place, each one is
// tried at the file's missed calls, and the one that alone type-checks
// there is used (see [Checker]); when none or several do, or check is
// nil, the calls are declined.
func PlanChecked(ctx context.Context, in heal.FixInput, ev *Evidence, check Checker) (contract.FixResult, error) {
	if ev.Truncated {
		return contract.FixResult{}, fmt.Errorf("history: the breaking commit's diff is too large to read whole: %w", results.ErrNoFix)
	}
	pl := &planner{ctx: ctx, check: check, in: in, ev: ev, fam: familyOf(in.Path), m: mask(in.Content, in.Path), usable: map[string]error{}, renamed: map[string]bool{}, chosen: map[string]choice{}, symbols: map[string][]string{}}
	var why []string
	seen := map[int]bool{}
	reports := in.Reports()
	if len(reports) > maxReports {
		reports = reports[:maxReports]
	}
	for _, r := range reports {
		if r.FilePath != "" && r.FilePath != in.Path {
			continue
		}
		if a, ok := askOf(r); ok {
			pl.reported = append(pl.reported, r.LineNumber)
			if k := javaSymbolKind(r.Message); a.need == needName && pl.fam == famJava && k != "" && !contains(pl.symbols[a.name], k) {
				pl.symbols[a.name] = append(pl.symbols[a.name], k)
			}
		}
	}
	for _, r := range reports {
		if r.FilePath != "" && r.FilePath != in.Path {
			continue
		}
		a, ok := askOf(r)
		if !ok || seen[r.LineNumber] {
			continue
		}
		if err := pl.line(r.LineNumber, a); err != nil {
			why = append(why, fmt.Sprintf("line %d: %v", r.LineNumber, err))
			continue
		}
		seen[r.LineNumber] = true
	}
	if len(pl.edits) == 0 {
		if len(why) == 0 {
			why = []string{"no report of a missing name or a wrong number of arguments"}
		}
		return contract.FixResult{}, fmt.Errorf("history: %s: %s: %w", in.Path, strings.Join(why, "; "), results.ErrNoFix)
	}
	pl.renameImports()
	out, err := applyEdits(in.Content, pl.edits)
	if err != nil {
		return contract.FixResult{}, fmt.Errorf("history: %s: %v: %w", in.Path, err, results.ErrNoFix)
	}
	if out == in.Content {
		return contract.FixResult{}, fmt.Errorf("history: the changes leave %s as it was: %w", in.Path, results.ErrNoFix)
	}
	return contract.FixResult{PatchedContent: out, FixReason: "as the breaking commit did elsewhere: " + strings.Join(pl.done, "; "), ConfidenceScore: Confidence, Fixer: Name}, nil
}

// planner gathers the edits of one Plan.
type planner struct {
	ctx    context.Context
	check  Checker // nil: no type check
	in     heal.FixInput
	ev     *Evidence
	fam    family
	m      string // in.Content masked
	edits  []edit
	done   []string
	usable map[string]error // rename checks, by old name
	// renamed lists the old names renamed on some line.
	renamed map[string]bool
	// imported lists the names the file's import lines bind; nil until
	// first needed.
	imported map[string]bool
	// reported are the lines of reports of a missing name or a wrong
	// number of arguments.
	reported []int
	// chosen is the argument change of a function's missed calls, or why
	// there is none, once [planner.change] decided it.
	chosen map[string]choice
	// symbols are the kinds of symbol javac's reports say are missing
	// ("class", "variable", "method"), by name.
	symbols map[string][]string
}

// choice is what [planner.change] decided for one function.
type choice struct {
	ch  ArgChange
	err error
}

// errNoEvidence is wrapped by a report the diff says nothing about.
var errNoEvidence = errors.New("the breaking commit shows no such change")

// line checks that what report a asks of line n is covered, then adds
// the line's edits.
func (pl *planner) line(n int, a ask) error {
	ln, ok := lineSpan(pl.in.Content, n)
	if !ok {
		return fmt.Errorf("no line %d", n)
	}
	switch {
	case a.need == needField:
		// A literal missing a field after the type gained one: the
		// breaking commit's own literals may give it different values,
		// and whichever one type-checks, the zero value does too, so
		// no reading of the diff or the compiler tells which value the
		// literal meant.
		return errors.New("a struct literal missing a field: its value is a choice (the zero value compiles too)")
	case a.need == needExample:
		return pl.example(n, ln, a)
	case a.need == needKeyword:
		return pl.keyword(n, ln, a)
	case a.need == needName:
		if err := pl.rename(a.name); err != nil {
			return err
		}
		if !hasToken(pl.m[ln.start:ln.end], a.name) {
			return fmt.Errorf("%s is not on the line", a.name)
		}
	case a.name != "":
		if err := pl.arity(a.name, ln); err != nil {
			return err
		}
	default:
		var names []string
		for _, c := range pl.lineCalls(ln) {
			if fn := pl.target(c.name); fn != "" && !contains(names, fn) {
				names = append(names, fn)
			}
		}
		if len(names) != 1 {
			return fmt.Errorf("the line calls %d functions whose calls the commit changed, want 1", len(names))
		}
		if err := pl.arity(names[0], ln); err != nil {
			return err
		}
	}
	es, what := pl.lineEdits(ln)
	if len(es) == 0 {
		return errors.New("nothing to change on the line")
	}
	pl.add(es)
	pl.done = append(pl.done, fmt.Sprintf("line %d: %s", n, strings.Join(what, ", ")))
	return nil
}

// example renames the Go example a.fn on line n, whose name refers to
// a.name, as the diff renamed a.name: ExampleOld_suffix becomes
// ExampleNew_suffix, ExampleT_Old becomes ExampleT_New (go test's naming
// of examples: Example, the identifier, then "_" and a method or a
// lower-case suffix).
func (pl *planner) example(n int, ln span, a ask) error {
	if err := pl.rename(a.name); err != nil {
		return err
	}
	parts := strings.Split(strings.TrimPrefix(a.fn, "Example"), "_")
	i := 0
	for i < len(parts) && parts[i] != a.name {
		i++
	}
	if i == len(parts) {
		return fmt.Errorf("the example %s does not name %s", a.fn, a.name)
	}
	parts[i] = pl.ev.Renames[a.name].New
	fn := "Example" + strings.Join(parts, "_")
	if declares(pl.in.Content, pl.in.Path, pl.fam, fn) {
		return fmt.Errorf("%s already declares %s", pl.in.Path, fn)
	}
	for _, t := range tokens(pl.m[ln.start:ln.end], "") {
		if t.text == a.fn {
			pl.add([]edit{{ln.start + t.start, ln.start + t.end, fn}})
			pl.done = append(pl.done, fmt.Sprintf("line %d: the example %s renamed to %s, as %s was renamed to %s (%s)", n, a.fn, fn, a.name, pl.ev.Renames[a.name].New, pl.ev.Renames[a.name].evidence()))
			return nil
		}
	}
	return fmt.Errorf("%s is not on the line", a.fn)
}

// rename returns why the diff's rename of old may not be applied here,
// or nil.
func (pl *planner) rename(old string) error {
	if err, ok := pl.usable[old]; ok {
		return err
	}
	err := pl.checkRename(old)
	pl.usable[old] = err
	return err
}

func (pl *planner) checkRename(old string) error {
	ev := pl.ev
	if why, bad := ev.Conflicts[old]; bad {
		return errors.New(why)
	}
	r := ev.Renames[old]
	switch {
	case r == nil:
		return fmt.Errorf("%s: %w", old, errNoEvidence)
	case r.Declared == 0 && !(ev.Removed[old] && ev.Declared[r.New] && r.References > 0):
		// A declaration the commit removed, one it added, and a use it
		// renamed from the one to the other corroborate the rename when
		// the lines do not pair (a block of constants rewritten).
		return fmt.Errorf("the commit replaces %s by %s but renames no declaration of it", old, r.New)
	case r.References == 0 && len(r.Others) > 0 && pl.fam == famJava:
		return fmt.Errorf("the commit replaces the declaration of %s by %d of the same kind (%s, %s): which one a use of %s means is a choice", old, 1+len(r.Others), r.New, strings.Join(r.Others, ", "), old)
	case r.References == 0 && r.Declared < 2 && pl.fam == famJava && len(pl.symbols[old]) > 0 && !kindsFit(pl.symbols[old], r.Kinds):
		return fmt.Errorf("javac misses the %s %s, and the commit renamed a declaration of another kind (%s) to %s", strings.Join(pl.symbols[old], "/"), old, strings.Join(r.Kinds, "/"), r.New)
	case r.References == 0 && r.Declared < 2 && !(pl.fam == famJava && kindsFit(pl.symbols[old], r.Kinds)):
		return fmt.Errorf("the commit renames the declaration %s to %s but no use of it: no corroboration", old, r.New)
	case ev.Declared[old]:
		return fmt.Errorf("the commit still declares %s", old)
	case declares(pl.in.Content, pl.in.Path, pl.fam, old):
		return fmt.Errorf("%s declares %s itself", pl.in.Path, old)
	}
	return nil
}

// target returns the function whose signature change applies to a call
// of name: name itself, or the new name of a usable rename; "" when none.
func (pl *planner) target(name string) string {
	if _, err := pl.ev.candidates(name); err == nil {
		return name
	}
	if r := pl.ev.Renames[name]; r != nil && pl.rename(name) == nil {
		if _, err := pl.ev.candidates(r.New); err == nil {
			return r.New
		}
	}
	return ""
}

// arity checks that line ln calls fn (or a name renamed to fn) with the
// number of arguments the commit's calls of fn had.
func (pl *planner) arity(fn string, ln span) error {
	ch, err := pl.change(fn)
	if err != nil {
		return err
	}
	for _, c := range pl.lineCalls(ln) {
		if pl.target(c.name) == fn && len(c.args) == ch.Before {
			return nil
		}
	}
	return fmt.Errorf("no call of %s with %d arguments on the line", fn, ch.Before)
}

// lineEdits returns every corroborated change of line ln: the renames of
// its names and the argument changes of its calls.
func (pl *planner) lineEdits(ln span) ([]edit, []string) {
	var es []edit
	var what []string
	for _, t := range tokens(pl.m[ln.start:ln.end], "") {
		r := pl.ev.Renames[t.text]
		if r == nil || pl.rename(t.text) != nil || pl.foreign(ln.start+t.start, r.Files) {
			continue
		}
		es = append(es, edit{ln.start + t.start, ln.start + t.end, r.New})
		if !pl.renamed[t.text] {
			what = append(what, fmt.Sprintf("%s renamed to %s (%s)", t.text, r.New, r.evidence()))
		}
		pl.renamed[t.text] = true
	}
	for _, c := range pl.lineCalls(ln) {
		fn := pl.target(c.name)
		if fn == "" {
			continue
		}
		ch, err := pl.change(fn)
		if err != nil || len(c.args) != ch.Before {
			continue
		}
		e, err := callEdit(pl.in.Content, c, ch)
		if err != nil {
			continue
		}
		es = append(es, e)
		if cs, _ := pl.ev.candidates(fn); len(cs) > 1 {
			what = append(what, fmt.Sprintf("%s in the call of %s (the commit's calls insert %s; only %q type-checks here)", ch, fn, texts(cs), ch.Text))
			continue
		}
		what = append(what, fmt.Sprintf("%s in the call of %s (as in %d call(s) the commit updated)", ch, fn, len(pl.ev.Signatures[fn].Sites)))
	}
	return es, what
}

// evidence says what corroborates a rename.
func (r *Rename) evidence() string {
	return fmt.Sprintf("the commit renamed %d declaration(s) and %d use(s)", r.Declared, r.References)
}

// lineCalls returns the calls that span line ln of the functions whose
// calls the commit changed (or of their old names), but for the calls of
// another module's function of the same name.
func (pl *planner) lineCalls(ln span) []call {
	var out []call
	for _, c := range callsOnLine(pl.m, func(name string) bool { return pl.target(name) != "" }, ln) {
		if !pl.foreign(c.nameAt, pl.ev.Signatures[pl.target(c.name)].Files) {
			out = append(out, c)
		}
	}
	return out
}

// foreign reports whether the name at offset at is qualified by a name the
// file imports ("os." in os.Open) that is not the module of the changed
// declarations (the base name or the folder of one of files): then it is
// another module's name that happens to be the same.
func (pl *planner) foreign(at int, files []string) bool {
	q := qualifier(pl.m, at)
	if q == "" || !pl.imports()[q] {
		return false
	}
	for _, f := range files {
		dir, base := path.Split(f)
		if q == strings.TrimSuffix(base, path.Ext(base)) || q == path.Base(strings.TrimSuffix(dir, "/")) {
			return false
		}
	}
	return true
}

// qualifier returns the name before the "." that precedes offset at of
// masked text m, or "".
func qualifier(m string, at int) string {
	if at < 2 || m[at-1] != '.' {
		return ""
	}
	i := at - 1
	for i > 0 && isIdent(m[i-1]) {
		i--
	}
	return m[i : at-1]
}

// imports returns the names the file's import lines bind: their
// identifiers, and the last element of the paths they quote ("http" of
// "net/http", "path" of 'node:path').
func (pl *planner) imports() map[string]bool {
	if pl.imported != nil {
		return pl.imported
	}
	pl.imported = map[string]bool{}
	l := lang.Of(pl.in.Path)
	for _, text := range strings.Split(pl.in.Content, "\n") {
		if l.IsImportLine(text) {
			for _, t := range tokens(text, pl.in.Path) {
				name := t.text
				if len(name) >= 2 && strings.ContainsRune("\"'`", rune(name[0])) {
					name = path.Base(strings.Trim(name, "\"'`"))
					name = strings.TrimSuffix(name, path.Ext(name))
					name = name[strings.LastIndexByte(name, ':')+1:]
				}
				pl.imported[name] = true
			}
		}
	}
	return pl.imported
}

// add adds the edits that overlap none already planned.
func (pl *planner) add(es []edit) {
	for _, e := range es {
		clash := false
		for _, o := range pl.edits {
			if e == o || (e.start < o.end && o.start < e.end) || (e.start == e.end && e.start == o.start && o.start == o.end) {
				clash = true
				break
			}
		}
		if !clash {
			pl.edits = append(pl.edits, e)
		}
	}
}

// renameImports renames the renamed names on the file's import lines too
// (a JavaScript require or a Python from-import of the old name), which
// the gate accepts outside the reported lines.
func (pl *planner) renameImports() {
	l := lang.Of(pl.in.Path)
	if len(pl.renamed) == 0 || l == nil {
		return
	}
	var es []edit
	start := 0
	for _, line := range strings.SplitAfter(pl.in.Content, "\n") {
		text := strings.TrimSuffix(line, "\n")
		if l.IsImportLine(text) {
			for _, t := range tokens(pl.m[start:start+len(text)], "") {
				if pl.renamed[t.text] {
					es = append(es, edit{start + t.start, start + t.end, pl.ev.Renames[t.text].New})
				}
			}
		}
		start += len(line)
	}
	pl.add(es)
}

// hasToken reports whether masked text m holds name as a whole token.
func hasToken(m, name string) bool {
	for _, t := range tokens(m, "") {
		if t.text == name {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// callsOnLine returns the calls in masked text m that span line ln, of the
// names fn accepts.
func callsOnLine(m string, fn func(string) bool, ln span) []call {
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
	if s.Disagree != "" {
		return ArgChange{}, fmt.Errorf("the commit's calls of %s disagree: %s", fn, s.Disagree)
	}
	return ch, nil
}

// maxCandidates bounds the arguments a missed call is tried with.
const maxCandidates = 4

// candidates returns the argument changes a missed call of fn may take:
// the one change of [Evidence.change] when the commit's calls agree, or,
// when its updated calls (and the calls its added lines make) insert
// different arguments at the same place of a declaration that changed by
// one parameter, each argument they insert. A removal is the same change
// whatever argument each call dropped: the parameter's place says it.
func (ev *Evidence) candidates(fn string) ([]ArgChange, error) {
	ch, err := ev.change(fn)
	if err == nil {
		return []ArgChange{ch}, nil
	}
	s := ev.Signatures[fn]
	if s == nil || len(s.Sites) == 0 || len(s.Deltas) == 0 {
		return nil, err
	}
	first := s.Sites[0]
	out := []ArgChange{first}
	for _, c := range append(append([]ArgChange(nil), s.Sites[1:]...), s.Others...) {
		if c.Delta != first.Delta || c.Index != first.Index || c.Before != first.Before {
			return nil, err // the calls disagree on the place, not only the value
		}
		if first.Delta < 0 || slices.ContainsFunc(out, c.same) {
			continue
		}
		if len(out) == maxCandidates {
			return nil, fmt.Errorf("the commit's calls of %s insert more than %d different arguments", fn, maxCandidates)
		}
		out = append(out, c)
	}
	for _, d := range s.Deltas {
		if d != first.Delta {
			return nil, err
		}
	}
	return out, nil
}

// maxFailure bounds the reason a diff could not be read, in one line.
const maxFailure = 120

// diffFailure says in one short line why the breaking commit's diff could
// not be read: a commit with no parent (the repository's first) is the
// common case.
func diffFailure(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "unknown revision") || strings.Contains(msg, "ambiguous argument") || strings.Contains(msg, "bad revision") {
		return "it has no parent commit"
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > maxFailure {
		msg = msg[:maxFailure] + "…"
	}
	return msg
}

package history

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Rename is what the diff says of a renamed identifier.
type Rename struct {
	Old, New string
	// Declared counts the declaration lines renamed from Old to New (a
	// removed line declaring Old paired with an added one declaring New).
	Declared int
	// References counts the other lines where the commit replaced Old by
	// New and changed nothing else.
	References int
	// Files are the files of the renamed declarations.
	Files []string
	// Kinds are the kinds of the renamed declarations (declTable's:
	// "class", "method", "var", a Java parameter's "param").
	Kinds []string
	// Others are the names of the other declarations of the same kind
	// that the commit added, in the files of the renamed declarations,
	// paired with no removed one: Old may have become one of them as
	// well as New.
	Others []string
}

// ArgChange is one change of a call's arguments: the argument at Index is
// inserted (Delta 1) or removed (Delta -1), in a call that had Before
// arguments.
type ArgChange struct {
	Delta  int
	Index  int
	Before int
	// Text is the inserted or removed argument, spaced as the first call
	// site wrote it.
	Text string
	norm string
}

// String says the change in words: `insert "nil" as argument 3 of 3`.
func (c ArgChange) String() string {
	if c.Delta > 0 {
		return fmt.Sprintf("insert %q as argument %d of %d", c.Text, c.Index+1, c.Before+1)
	}
	return fmt.Sprintf("remove argument %d (%q) of %d", c.Index+1, c.Text, c.Before)
}

func (c ArgChange) same(d ArgChange) bool {
	return c.Delta == d.Delta && c.Index == d.Index && c.Before == d.Before && c.norm == d.norm
}

// Signature is what the diff says of a function whose calls changed.
type Signature struct {
	Name string
	// Deltas are the changes of parameter count of its changed
	// declarations (a prototype and a definition give two).
	Deltas []int
	// Sites are the call changes of the lines the commit updated.
	Sites []ArgChange
	// Disagree, when not empty, says which call the commit's added lines
	// make with another argument where its updated calls inserted one.
	Disagree string
	// Others are the other arguments the commit's added calls pass where
	// its updated calls inserted one: more candidates for a missed call.
	Others []ArgChange
	// Files are the files of the changed declarations.
	Files []string
}

// Evidence is what the diff of one commit says about the names of one
// language family.
type Evidence struct {
	// Renames are keyed by the old name; a name renamed two ways is in
	// Conflicts instead.
	Renames map[string]*Rename
	// Signatures are keyed by the function's name.
	Signatures map[string]*Signature
	// Declared lists the names the added lines declare.
	Declared map[string]bool
	// Removed lists the names the removed lines declare.
	Removed map[string]bool
	// Conflicts says, by old name, why the diff's renames of it disagree.
	Conflicts map[string]string
	// Keywords are the parameters renamed in a function's declaration,
	// by function and old name: the new name, "" when renamed two ways.
	Keywords map[string]map[string]string

	// Truncated says the diff was too large to read whole: what the rest
	// holds could contradict the evidence, so the tier declines.
	Truncated bool

	removedIn map[string][]string // the files of Removed's declarations
	// newDecls are the names of the added declarations no removed line
	// paired with, by file and kind ("path\x00kind").
	newDecls map[string][]string
	// gone are the removed lines of Java files, for inlinedParams;
	// goneMethods the removed declarations of methods among them.
	gone        []deferredPair
	goneMethods []deferredPair

	work     int // bytes of line pairs read, bounded by maxWork
	deferred []deferredPair
	added    []deferredPair // every added line (its r is nil), for agreement
}

// Analyze reads the diff's files of the language family of the file at
// target (Go; C and C++; Python; JavaScript and TypeScript) for renamed
// identifiers and changed calls. It pairs each removed line of a change
// with an added line of the same change: the one at the same offset first,
// then the others.
func Analyze(files []File, target string) *Evidence {
	fam := familyOf(target)
	ev := &Evidence{Renames: map[string]*Rename{}, Signatures: map[string]*Signature{}, Declared: map[string]bool{}, Removed: map[string]bool{}, removedIn: map[string][]string{}, newDecls: map[string][]string{}, Conflicts: map[string]string{}, Keywords: map[string]map[string]string{}}
	if fam == "" {
		return ev
	}
	for _, f := range files {
		p := f.Path()
		if p == "" || familyOf(p) != fam {
			continue
		}
		for _, h := range f.Hunks {
			for _, b := range changeBlocks(h) {
				if ev.Truncated {
					return ev
				}
				ev.block(b, p, fam)
			}
		}
	}
	ev.renamedCalls()
	ev.agreement()
	ev.inlinedParams()
	ev.others()
	// A rename whose declarations did not pair line by line is in the
	// files of the old name's removed declaration.
	for old, r := range ev.Renames {
		if len(r.Files) == 0 && ev.Removed[old] {
			r.Files = append(r.Files, ev.removedIn[old]...)
		}
	}
	return ev
}

// agreement checks every call the added lines make of a function whose
// updated calls inserted an argument: one with the new number of
// arguments but another argument at that place shows the argument
// depends on the call (a new call, or a line that changed more than the
// argument, passing something else), and the function's Signature says
// so in Disagree.
func (ev *Evidence) agreement() {
	want := map[string]ArgChange{}
	for name := range ev.Signatures {
		if ch, err := ev.change(name); err == nil && ch.Delta > 0 {
			want[name] = ch
		}
	}
	if len(want) > 0 {
		for _, d := range ev.added {
			ev.agree(d.a, d.p, want)
		}
	}
	ev.added = nil
}

// agree checks the calls of added line l against want.
func (ev *Evidence) agree(l *diffLine, p string, want map[string]ArgChange) {
	for _, c := range calls(mask(l.text, p), func(name string) bool { _, ok := want[name]; return ok }) {
		ch := want[c.name]
		s := ev.Signatures[c.name]
		if len(c.args) != ch.Before+1 || l.isDecl && l.decl.name == c.name {
			continue
		}
		got := argNorms(l, c)[ch.Index]
		if got == ch.norm {
			continue
		}
		a := c.args[ch.Index]
		if s.Disagree == "" {
			s.Disagree = fmt.Sprintf("%s passes %q where its updated calls insert %q (%s)", c.name, l.text[a.start:a.end], ch.Text, p)
		}
		o := ch
		o.Text, o.norm = l.text[a.start:a.end], got
		if !slices.ContainsFunc(s.Others, o.same) && len(s.Others) < maxCandidates {
			s.Others = append(s.Others, o)
		}
	}
}

// block is one run of removed and added lines of a hunk.
type block struct{ removed, added []string }

// changeBlocks splits a hunk into its runs of changed lines. Cut lines are
// left out: half a line is no evidence.
func changeBlocks(h Hunk) []block {
	var out []block
	var cur block
	flush := func() {
		if len(cur.removed)+len(cur.added) > 0 {
			out = append(out, cur)
		}
		cur = block{}
	}
	for _, l := range h.Lines {
		switch {
		case l.Op == Context:
			flush()
		case l.Cut:
		case l.Op == Removed:
			cur.removed = append(cur.removed, l.Text)
		case l.Op == Added:
			cur.added = append(cur.added, l.Text)
		}
	}
	flush()
	return out
}

// Bounds of the analysis: a diff holds up to MaxDiffBytes of hostile
// text.
const (
	// smallBlock is the most lines a change block may have for its lines
	// to be paired other than by offset.
	smallBlock = 64
	// maxWork bounds the work of one analysis: the bytes of the line
	// pairs it reads, plus pairCost per pair.
	maxWork  = 16 << 20
	pairCost = 256
)

// diffLine is one changed line, read once.
type diffLine struct {
	text   string
	decl   decl
	isDecl bool
	toks   []token
	calls  []call // read when first needed
	paired bool
}

// deferredPair is a removed line and the added line at its offset that
// showed nothing on their own; renamedCalls tries them again.
type deferredPair struct {
	r, a *diffLine
	p    string
}

// renamedCalls tries again the lines that changed both a renamed name and
// a call (f(a, b) became g(a, b, nil) after f was renamed g): it renames
// the removed line's names as the commit renamed their declarations, and
// records the call change the line then shows, and the renames as used.
func (ev *Evidence) renamedCalls() {
	for _, d := range ev.deferred {
		var es []edit
		used := map[string]bool{}
		for _, t := range d.r.toks {
			if r := ev.Renames[t.text]; r != nil && r.Declared > 0 {
				es = append(es, edit{t.start, t.end, r.New})
				used[t.text] = true
			}
		}
		if len(es) == 0 {
			continue
		}
		if ev.work += len(d.r.text) + len(d.a.text) + pairCost; ev.work > maxWork {
			ev.Truncated = true
			return
		}
		text, err := applyEdits(d.r.text, es)
		if err != nil {
			continue
		}
		fam := familyOf(d.p)
		r := readLine(text, d.p, fam)
		if !ev.callSites(&r, d.a, d.p) {
			continue
		}
		for old := range used {
			ev.Renames[old].References++
		}
	}
	ev.deferred = nil
}

func readLine(text, p string, fam family) diffLine {
	d, ok := declOf(text, p, fam)
	return diffLine{text: text, decl: d, isDecl: ok, toks: tokens(text, p)}
}

// block records what one change block shows. A removed line is paired
// with the added line at its offset in the block, then, in a small block,
// with the others in order.
func (ev *Evidence) block(b block, p string, fam family) {
	removed := make([]diffLine, len(b.removed))
	for i, r := range b.removed {
		removed[i] = readLine(r, p, fam)
		if fam == famJava {
			ev.removedJava(&removed[i], p)
		}
		if removed[i].isDecl {
			n := removed[i].decl.name
			ev.Removed[n] = true
			if !contains(ev.removedIn[n], p) {
				ev.removedIn[n] = append(ev.removedIn[n], p)
			}
		}
	}
	added := make([]diffLine, len(b.added))
	for i, a := range b.added {
		added[i] = readLine(a, p, fam)
		if added[i].isDecl {
			ev.Declared[added[i].decl.name] = true
		}
		ev.added = append(ev.added, deferredPair{a: &added[i], p: p})
	}
	used := make([]bool, len(added))
	defer func() {
		for i := range removed {
			if i < len(added) && !used[i] && !removed[i].paired {
				ev.deferred = append(ev.deferred, deferredPair{&removed[i], &added[i], p})
			}
		}
	}()
	for i := range removed {
		r := &removed[i]
		order := make([]int, 0, len(added))
		if i < len(added) {
			order = append(order, i)
		}
		for j := 0; j < len(added) && len(removed)+len(added) <= smallBlock; j++ {
			if j != i {
				order = append(order, j)
			}
		}
		for _, j := range order {
			if used[j] {
				continue
			}
			if ev.work += len(r.text) + len(added[j].text) + pairCost; ev.work > maxWork {
				ev.Truncated = true
				return
			}
			if ev.pair(r, &added[j], p) {
				used[j], r.paired = true, true
				break
			}
		}
	}
	ev.unpaired(added, used, p)
}

// unpaired records the declarations of added that no removed line of
// their block paired with: new names, which a name whose declaration the
// commit renamed may have become as well.
func (ev *Evidence) unpaired(added []diffLine, used []bool, p string) {
	for j := range added {
		a := &added[j]
		if used[j] || !a.isDecl {
			continue
		}
		k := p + "\x00" + a.decl.kind
		if !contains(ev.newDecls[k], a.decl.name) && len(ev.newDecls[k]) < maxCandidates {
			ev.newDecls[k] = append(ev.newDecls[k], a.decl.name)
		}
	}
}

// others fills each declared rename's Others: the new declarations of
// its kind in its files.
func (ev *Evidence) others() {
	for _, r := range ev.Renames {
		for _, p := range r.Files {
			for _, k := range r.Kinds {
				for _, n := range ev.newDecls[p+"\x00"+k] {
					if n != r.New && !contains(r.Others, n) {
						r.Others = append(r.Others, n)
					}
				}
			}
		}
	}
}

// pair records what a removed line r and an added line a show, when they
// are one line changed: the same declaration renamed or with other
// parameters, a reference renamed, or a call with an argument more or
// less. It reports whether they are.
func (ev *Evidence) pair(r, a *diffLine, p string) bool {
	dr, da := r.decl, a.decl
	if r.isDecl && a.isDecl && dr.kind == da.kind {
		changed := dr.hasParams && da.hasParams && strings.Join(dr.params, ",") != strings.Join(da.params, ",")
		if dr.name != da.name {
			ev.rename(dr.name, da.name, true)
			ev.declaredIn(dr.name, dr.kind, p)
		} else if !changed {
			// The same declaration with another value or body: the
			// rest of the line may still show a reference or a call.
			return ev.references(r, a, p)
		}
		if changed {
			ev.keywords(dr, da)
			if familyOf(p) == famJava {
				ev.javaParams(dr, da, p)
			}
			delta := len(da.params) - len(dr.params)
			for _, n := range []string{dr.name, da.name} {
				s := ev.signature(n)
				s.Deltas = append(s.Deltas, delta)
				if !contains(s.Files, p) {
					s.Files = append(s.Files, p)
				}
				if dr.name == da.name {
					break
				}
			}
		}
		return true
	}
	return ev.references(r, a, p)
}

// references records a reference renamed, or calls changed, from r to a.
func (ev *Evidence) references(r, a *diffLine, p string) bool {
	if old, nw, ok := renamedToken(r.toks, a.toks); ok {
		ev.rename(old, nw, false)
		return true
	}
	return ev.callSites(r, a, p)
}

// renamedToken reports whether b is a with every occurrence of one
// identifier replaced by another.
func renamedToken(a, b []token) (old, nw string, ok bool) {
	if len(a) != len(b) {
		return "", "", false
	}
	for i := range a {
		if a[i].text == b[i].text {
			if old != "" && a[i].text == old {
				return "", "", false // Old kept somewhere: not a rename
			}
			continue
		}
		if !isName(a[i].text) || !isName(b[i].text) {
			return "", "", false
		}
		if old == "" {
			old, nw = a[i].text, b[i].text
			// An earlier unchanged occurrence of old spoils it too.
			for _, t := range a[:i] {
				if t.text == old {
					return "", "", false
				}
			}
			continue
		}
		if a[i].text != old || b[i].text != nw {
			return "", "", false
		}
	}
	return old, nw, old != ""
}

// rename records old renamed to nw.
func (ev *Evidence) rename(old, nw string, declared bool) {
	if _, bad := ev.Conflicts[old]; bad {
		return
	}
	r := ev.Renames[old]
	if r == nil {
		r = &Rename{Old: old, New: nw}
		ev.Renames[old] = r
	}
	if r.New != nw {
		ev.Conflicts[old] = fmt.Sprintf("the commit renames %s both to %s and to %s", old, r.New, nw)
		delete(ev.Renames, old)
		return
	}
	if declared {
		r.Declared++
	} else {
		r.References++
	}
}

// declaredIn records the file and kind of a declaration renamed from old.
func (ev *Evidence) declaredIn(old, kind, p string) {
	r := ev.Renames[old]
	if r == nil {
		return
	}
	if !contains(r.Files, p) {
		r.Files = append(r.Files, p)
	}
	if !contains(r.Kinds, kind) {
		r.Kinds = append(r.Kinds, kind)
	}
}

func (ev *Evidence) signature(name string) *Signature {
	s := ev.Signatures[name]
	if s == nil {
		s = &Signature{Name: name}
		ev.Signatures[name] = s
	}
	return s
}

// callSites records the calls of r whose arguments a changes by one
// inserted or removed argument, when that change alone turns r into a.
func (ev *Evidence) callSites(r, a *diffLine, p string) bool {
	if !subsequence(r.toks, a.toks) && !subsequence(a.toks, r.toks) {
		return false // not arguments inserted or removed alone
	}
	if r.calls == nil {
		r.calls = calls(mask(r.text, p), nil)
	}
	if a.calls == nil {
		a.calls = calls(mask(a.text, p), nil)
	}
	byName := map[string][]call{}
	for _, c := range a.calls {
		byName[c.name] = append(byName[c.name], c)
	}
	found := false
	seen := map[string]bool{}
	for _, c := range r.calls {
		if seen[c.name] {
			continue
		}
		seen[c.name] = true
		var olds []call
		for _, o := range r.calls {
			if o.name == c.name {
				olds = append(olds, o)
			}
		}
		news := byName[c.name]
		if len(olds) != len(news) {
			continue
		}
		ch, ok := siteChange(r, a, olds, news)
		if !ok {
			continue
		}
		patched, err := applyCalls(r.text, olds, ch)
		if err != nil || !sameTokens(tokens(patched, p), a.toks) {
			continue
		}
		s := ev.signature(c.name)
		s.Sites = append(s.Sites, ch)
		found = true
	}
	return found
}

// subsequence reports whether the tokens of short appear in long in
// order.
func subsequence(short, long []token) bool {
	j := 0
	for i := 0; i < len(long) && j < len(short); i++ {
		if long[i].text == short[j].text {
			j++
		}
	}
	return j == len(short)
}

// siteChange returns the one change that turns every changed call of olds
// (in r) into the matching call of news (in a).
func siteChange(r, a *diffLine, olds, news []call) (ArgChange, bool) {
	var ch ArgChange
	have := false
	for k := range olds {
		oa, na := argNorms(r, olds[k]), argNorms(a, news[k])
		if equal(oa, na) {
			continue
		}
		c, ok := oneArg(oa, na)
		if !ok {
			return ArgChange{}, false
		}
		if c.Delta > 0 {
			s := news[k].args[c.Index]
			c.Text = a.text[s.start:s.end]
		} else {
			s := olds[k].args[c.Index]
			c.Text = r.text[s.start:s.end]
		}
		if have && !ch.same(c) {
			return ArgChange{}, false
		}
		ch, have = c, true
	}
	return ch, have
}

// argNorms returns the normalised texts of a call's arguments: their
// tokens, joined by one blank.
func argNorms(l *diffLine, c call) []string {
	out := make([]string, len(c.args))
	k := 0
	for i, s := range c.args {
		for k < len(l.toks) && l.toks[k].start < s.start {
			k++
		}
		var parts []string
		for ; k < len(l.toks) && l.toks[k].end <= s.end; k++ {
			parts = append(parts, l.toks[k].text)
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

// oneArg finds the one argument inserted into or removed from old to give
// nw. It fails when there is none, or when more than one position would
// do (the same argument inserted next to an equal one).
func oneArg(old, nw []string) (ArgChange, bool) {
	long, short, delta := nw, old, 1
	if len(old) == len(nw)+1 {
		long, short, delta = old, nw, -1
	} else if len(nw) != len(old)+1 {
		return ArgChange{}, false
	}
	var hits []int
	for j := range long {
		if equal(long[:j], short[:j]) && equal(long[j+1:], short[j:]) {
			hits = append(hits, j)
		}
	}
	if len(hits) != 1 {
		return ArgChange{}, false
	}
	j := hits[0]
	return ArgChange{Delta: delta, Index: j, Before: len(old), norm: long[j]}, true
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Names returns the old names of the renames and the names of the
// signatures, sorted, for messages and tests.
func (ev *Evidence) Names() (renames, signatures []string) {
	for n := range ev.Renames {
		renames = append(renames, n)
	}
	for n := range ev.Signatures {
		signatures = append(signatures, n)
	}
	sort.Strings(renames)
	sort.Strings(signatures)
	return renames, signatures
}

package logparse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// DefaultMaxReports caps the reports of one log, so that output and memory
// stay bounded on pathological logs.
const DefaultMaxReports = 2000

// MaxLineLength is the longest line looked at; the rest of a longer line is
// skipped. No diagnostic worth reporting is longer.
const MaxLineLength = 64 << 10

// maxMessage caps the length of a report's message.
const maxMessage = 4000

// Options configure [Parse]. The zero value parses with no known root:
// relative paths are kept as they are and absolute ones are mapped by the
// known CI roots or kept.
type Options struct {
	// Root is the workspace root as the log sees it, for example
	// /workspace/app or /home/runner/work/r/r. Absolute paths under it
	// become repo-relative; other absolute paths are dropped.
	Root string
	// Workspace is the checkout on this host. When set, its files are
	// indexed and paths that do not exist are matched by their suffix.
	Workspace string
	// MaxReports caps the number of reports; zero means DefaultMaxReports.
	MaxReports int
}

// ErrInput is returned by Parse when the log cannot be read.
var ErrInput = errors.New("logparse: reading log")

// Parse reads a combined build log in one streaming pass and returns the
// located errors it finds, in order of first appearance, deduplicated. The
// same input always gives the same output. Memory is bounded by
// MaxLineLength, MaxReports and the workspace index, not by the log size.
func Parse(r io.Reader, opts Options) ([]contract.BugReport, error) {
	return newParser(opts).run(r)
}

// ParseString is Parse over a string.
func ParseString(log string, opts Options) []contract.BugReport {
	out, _ := Parse(strings.NewReader(log), opts)
	return out
}

// chunkSize is the read buffer. Lines are cut out of one string per
// chunk, so that reading costs one allocation per chunk, not per line;
// whatever the parser keeps beyond a line is cloned (see own).
const chunkSize = 256 << 10

// run feeds every line of r to p and returns the reports.
func (p *parser) run(r io.Reader) ([]contract.BugReport, error) {
	buf := make([]byte, chunkSize)
	n := 0
	skipping := false // inside the discarded tail of an over-long line
	for {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil && err != io.EOF {
			return p.finish(), errors.Join(ErrInput, err)
		}
		if last := bytes.LastIndexByte(buf[:n], '\n'); last >= 0 {
			skipping = p.feedChunk(string(buf[:last+1]), skipping)
			n = copy(buf, buf[last+1:n])
		} else if n == len(buf) {
			if !skipping {
				p.feed(string(buf[:MaxLineLength]))
			}
			skipping, n = true, 0
		}
		if err == io.EOF {
			if n > 0 && !skipping {
				p.feed(string(buf[:n]))
			}
			return p.finish(), nil
		}
	}
}

// feedChunk feeds the newline-terminated lines of chunk. It returns false:
// a chunk always ends a line.
func (p *parser) feedChunk(chunk string, skipping bool) bool {
	for len(chunk) > 0 {
		i := strings.IndexByte(chunk, '\n')
		line := chunk[:i]
		chunk = chunk[i+1:]
		if skipping {
			skipping = false
			continue
		}
		if len(line) > MaxLineLength {
			line = line[:MaxLineLength]
		}
		p.feed(line)
	}
	return false
}

// own copies a string cut from a read chunk, so that keeping it does not
// keep the chunk.
func own(s string) string { return strings.Clone(s) }

// finding is a report before its path is resolved.
type finding struct {
	file      string
	line, col int
	typ       contract.ErrorType
	msg       string
	test      string
	tool      string
	rule      string
	sev       string
	conf      float64
	base      string
	row       string // the table row that read it
}

// handler reads a multi-line format. line returns true when it consumed
// the line, so no row sees it; flush is called at the end of the log.
type handler interface {
	line(p *parser, s string) bool
	flush(p *parser)
}

// handlerCtors make a fresh set of handlers for each parse, in order.
var handlerCtors []func() handler

var handlerOrder []int

// addHandler registers a handler constructor; lower orders see each line
// first. Tracebacks come before stack-trace readers of other languages,
// whose exception lines look alike.
func addHandler(order int, ctor func() handler) {
	i := sort.SearchInts(handlerOrder, order)
	handlerOrder = append(handlerOrder[:i], append([]int{order}, handlerOrder[i:]...)...)
	handlerCtors = append(handlerCtors[:i], append([]func() handler{ctor}, handlerCtors[i:]...)...)
}

type parser struct {
	opts     Options
	res      *resolver
	max      int
	out      []contract.BugReport
	places   places         // the reports at each file:line, to find duplicates
	held     held           // a report whose detail lines are being read
	syntax   map[string]int // file -> line of its first SYNTAX report
	handlers []handler
	ctx      context
	used     map[string]int // reports per row, when counting (tests)
	mask     byteMask       // the current line's bytes
	errWord  int8           // hasErrWord's answer for the current line: 0 unknown, 1 no, 2 yes
	rror     int8           // hasRror's answer for the current line, the same way
	frames   []string       // absolute workspace frames, for commonDir
	partial  string         // a -json event's unfinished line
	rels     []string       // relative paths named by summaries, for pairedRoot
	lead     byte           // the current line's first byte after blanks, 0 for a blank line (see quiet)
	ungated  bool           // every reader sees every line, quiet or not (tests compare)
}

// context is what earlier lines said about later ones.
type context struct {
	base     string    // directory of `cd dir && tool`, relative to the root or absolute
	dirs     []string  // make's "Entering directory" stack
	goVet    bool      // inside `go vet` output
	maven    bool      // the log is a Maven build
	werror   bool      // javac -Werror seen
	javaWarn []finding // javac warnings, reported if -Werror follows
	cxxHere  *finding  // the last "required from here" inside the workspace
	modPath  string    // the Go module path, when known
	pyTest   string    // the pytest test whose section is being read
	cTest    string    // the ctest or GoogleTest test whose output is being read
	pyChain  bool      // a Python chain message was read: the next exception is a later link
}

func newParser(opts Options) *parser {
	p := &parser{
		opts:   opts,
		res:    newResolver(opts.Root, opts.Workspace),
		max:    opts.MaxReports,
		places: newPlaces(),
		syntax: map[string]int{},
	}
	if p.max <= 0 {
		p.max = DefaultMaxReports
	}
	if gomod := readWorkspaceFile(opts.Workspace, "go.mod"); gomod != "" {
		p.ctx.modPath = goModulePath(gomod)
	}
	for _, c := range handlerCtors {
		p.handlers = append(p.handlers, c())
	}
	return p
}

// feed processes one raw line.
func (p *parser) feed(raw string) {
	m := maskOf(raw) // a superset of the clean line's: cleaning only drops bytes
	s := cleanMasked(raw, m)
	if len(s) > MaxLineLength {
		s = s[:MaxLineLength]
	}
	if len(s) > 12 && s[0] == '{' && strings.Contains(s, `"Output":`) {
		if out, ok := goTestJSONOutput(s); ok {
			p.feedOutput(out)
			return
		}
	}
	p.processMasked(s, m)
}

// goTestJSONOutput returns the Output of a `go test -json` (test2json)
// event, or of a -json build event.
func goTestJSONOutput(s string) (string, bool) {
	ev, ok := decodeGoTest(s)
	if !ok || ev.Output == nil {
		return "", false
	}
	return *ev.Output, true
}

// goTestLine is what salve reads of one go test -json event.
type goTestLine struct {
	Action string
	Output *string
}

func decodeGoTest(s string) (goTestLine, bool) {
	var ev goTestLine
	err := json.Unmarshal([]byte(s), &ev)
	return ev, err == nil
}

// GoTestText returns log as text: the Output of each go test -json event
// in turn, and every other line as it is. A plain log comes back
// unchanged. It is for reading the log of a go test -json run as a
// person, or a table of messages, reads the plain one.
func GoTestText(log string) string {
	if !strings.Contains(log, `"Action"`) {
		return log
	}
	var b strings.Builder
	b.Grow(len(log) / 2)
	for rest := log; rest != ""; {
		var line string
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			line, rest = rest, ""
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, `{"`) {
			if ev, ok := decodeGoTest(t); ok && ev.Action != "" {
				if ev.Output != nil {
					b.WriteString(*ev.Output)
				}
				continue
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// feedOutput feeds the text of -json events as the lines they carry; an
// event may hold part of a line, which waits (bounded) for the rest.
func (p *parser) feedOutput(out string) {
	out = p.partial + out
	p.partial = ""
	for {
		i := strings.IndexByte(out, '\n')
		if i < 0 {
			if len(out) > MaxLineLength {
				out = out[:MaxLineLength]
			}
			p.partial = own(out)
			return
		}
		m := maskOf(out[:i])
		p.processMasked(cleanMasked(out[:i], m), m)
		out = out[i+1:]
	}
}

// process reads one clean line.
func (p *parser) process(s string) { p.processMasked(s, maskOf(s)) }

// processMasked reads one clean line whose byte mask is m, or a superset
// of it.
func (p *parser) processMasked(s string, m byteMask) {
	if p.readHeld(s) {
		return
	}
	p.mask = m
	p.errWord, p.rror = 0, 0
	p.trackContext(s)
	p.lead = 0
	if u := trimLeftRESpace(s); u != "" {
		p.lead = u[0]
	}
	for _, h := range p.handlers {
		if h.line(p, s) {
			return
		}
	}
	p.matchRows(s)
}

// leadSet is a set of bytes a line may start with, after blanks.
type leadSet [256]bool

// leads returns the set of the bytes of s.
func leads(s string) *leadSet {
	var l leadSet
	for i := 0; i < len(s); i++ {
		l[s[i]] = true
	}
	return &l
}

// quiet reports whether the current line is none of a reader's business
// while the reader is between its blocks, when it reacts then only to
// lines that start with one of starts (after the blanks \s matches):
// most lines are turned down on their first byte, before the reader's
// own tests. A reader asks only when it is between blocks.
func (p *parser) quiet(starts *leadSet) bool { return !p.ungated && !starts[p.lead] }

// matchRows tries the single-line rows in table order; the first that
// matches and classifies wins.
func (p *parser) matchRows(s string) {
	if len(s) < 4 {
		return
	}
	// A Windows drive ("C:\\src\\a.c:3:1: error: ...") would read as a
	// file "C" to the rows: they see the line without it, and a file they
	// read at the start of the line gets it back.
	drive := ""
	if s[1] == ':' && (s[2] == '\\' || s[2] == '/') && (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z') {
		drive, s = s[:2], s[2:]
	}
	f := features(s, p.mask)
	if ndLineWord.in(s, p.mask) && hasLineWord(s) {
		f |= featLineWord
	}
	for _, r := range byFeatures[f] {
		if r.ErrWord && !p.hasRror(s) {
			continue
		}
		if r.Pre != nil {
			if !r.Pre(s) {
				continue
			}
		} else if r.hints != nil && !anyIn(r.hints, s, p.mask) {
			continue
		}
		g := r.re.FindStringSubmatch(s)
		if g == nil {
			continue
		}
		m := &match{row: r, line: s, g: g, p: p}
		t := r.Type
		if r.Classify != nil {
			var ok bool
			if t, ok = r.Classify(m); !ok {
				return
			}
		}
		msg := m.get("msg")
		if msg == "" {
			msg = strings.TrimSpace(s)
		}
		rule := m.rule
		if rule == "" {
			rule = m.get("code")
		}
		if rule == "" {
			rule = m.get("rule")
		}
		f := finding{
			file: m.get("file"), line: m.num("line"), col: m.num("col"), typ: t,
			msg: msg, tool: r.Tool, rule: rule, sev: normSeverity(m.get("sev")),
			conf: r.Confidence, base: p.base(), row: r.Name, test: m.get("test"),
		}
		if f.test == "" && t == contract.ErrLogic {
			f.test = p.ctx.cTest
		}
		if drive != "" && f.file != "" && hasPrefix(s, f.file) {
			f.file = drive + f.file
		}
		if m.relocate != nil {
			f.file, f.line, f.col, f.base = m.relocate.file, m.relocate.line, m.relocate.col, m.relocate.base
			f.conf, f.row = 0.85, "gcc-required-from"
			if m.relocate.row != "" {
				f.conf, f.row = m.relocate.conf, m.relocate.row
			}
		}
		if r.Detail != nil {
			p.hold(f, r.Detail)
			return
		}
		p.emit(f)
		return
	}
}

// errWords are the words of hasErrWord, "rror" first.
var errWords = []needle{newNeedle("rror"), newNeedle("xception"), newNeedle("Failure"), newNeedle("Throwable")}

// hasErrWord reports whether the current line s names an error or an
// exception; it is computed once per line, and only when asked.
func (p *parser) hasErrWord(s string) bool {
	if p.errWord == 0 {
		p.errWord = 1
		if anyIn(errWords, s, p.mask) {
			p.errWord = 2
		}
	}
	return p.errWord == 2
}

// hasRror reports whether the current line s contains "rror"; it is
// computed once per line, and only when asked.
func (p *parser) hasRror(s string) bool {
	if p.rror == 0 {
		p.rror = 1
		if p.errWord != 1 && errWords[0].in(s, p.mask) { // 1: no error word at all
			p.rror = 2
		}
	}
	return p.rror == 2
}

// base is the directory relative paths are written against right now.
func (p *parser) base() string {
	if n := len(p.ctx.dirs); n > 0 {
		return p.ctx.dirs[n-1]
	}
	return p.ctx.base
}

func normSeverity(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "e", "error", "fatal error", "fatal", "err":
		if s == "" {
			return ""
		}
		return "error"
	case "w", "warning", "warn":
		return "warning"
	case "i", "info", "note", "style", "n", "c", "convention", "r", "refactor":
		return "info"
	}
	return strings.ToLower(s)
}

// emit resolves a finding's path and adds it, unless it is outside the
// workspace, a duplicate of an earlier report (see places.find), or a
// cascade of an earlier error.
func (p *parser) emit(f finding) {
	if len(p.out) >= p.max || f.line < 1 || !f.typ.Valid() {
		return
	}
	rel, res := p.res.resolve(f.file, f.base)
	if res == resDrop {
		return
	}
	if p.used != nil {
		p.used[f.row]++
	}
	msg := strings.TrimRight(f.msg, " \t\n")
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	col := max(f.col, 0)
	key := rel + ":" + strconv.Itoa(f.line)
	if i := p.places.find(p.out, key, col, f.typ, msg); i >= 0 {
		if p.out[i].TestName == nil && f.test != "" {
			t := own(f.test)
			p.out[i].TestName = &t
		}
		return
	}
	if f.typ == contract.ErrSyntax {
		if first, ok := p.syntax[rel]; ok && (f.line >= first && f.line-first <= 25 || eofCascade.MatchString(f.msg)) {
			return
		}
		p.syntax[rel] = f.line
	}
	conf := f.conf
	switch res {
	case resMatched:
		conf *= 0.9
	case resGuess:
		conf *= 0.7
	}
	conf = math.Round(conf*100) / 100
	r := contract.BugReport{
		FilePath: own(rel), LineNumber: f.line, ErrorType: f.typ, Message: own(msg),
		ConfidenceScore: &conf, Column: col, Tool: f.tool, Rule: own(f.rule), Severity: f.sev,
	}
	if f.test != "" {
		t := own(f.test)
		r.TestName = &t
	}
	p.places.add(key, len(p.out))
	p.out = append(p.out, r)
}

var eofCascade = mustRe(`(?i)end of (?:file|input)|unexpected EOF|unclosed delimiter|'}' expected|expected '}'`)

// finish flushes the handlers and returns the reports, never nil.
func (p *parser) finish() []contract.BugReport {
	if p.partial != "" {
		p.process(p.partial)
		p.partial = ""
	}
	p.release()
	for _, h := range p.handlers {
		h.flush(p)
	}
	p.relocate()
	if p.out == nil {
		return []contract.BugReport{}
	}
	return p.out
}

// relocate applies roots learned late in the log to the absolute paths that
// were kept as they were, and drops the duplicates that this reveals.
func (p *parser) relocate() {
	if p.res.root == "" && len(p.res.roots) == 0 && p.res.files == nil {
		if root := pairedRoot(p.out, p.rels); root != "" {
			p.res.learnRoot(root)
		} else if root := commonDir(p.frames); root != "" {
			p.res.learnRoot(root)
		}
	}
	changed := false
	if len(p.res.roots) > 0 {
		for i, r := range p.out {
			if hasPrefix(r.FilePath, "/") {
				if rel, ok := p.res.stripRoot(r.FilePath); ok && rel != "" {
					p.out[i].FilePath, changed = rel, true
				}
			}
		}
	}
	if p.res.files == nil && unifyBases(p.out) {
		changed = true
	}
	if !changed {
		return
	}
	p.out, p.places = dedupe(p.out)
}

// unifyBases gives a bare file name the directory that another report of
// the same log gives a file of that name, when exactly one directory does:
// go test prints t.Errorf lines relative to the package directory, while
// its panics print absolute paths that a root turns repo-relative. It is
// only used without a workspace, whose index settles such names itself. It
// reports whether it changed anything.
func unifyBases(out []contract.BugReport) bool {
	full := map[string]string{} // base name -> the one dir/base, or "" when several
	for _, r := range out {
		i := strings.LastIndexByte(r.FilePath, '/')
		if i <= 0 || hasPrefix(r.FilePath, "/") {
			continue
		}
		base := r.FilePath[i+1:]
		if f, ok := full[base]; !ok {
			full[base] = r.FilePath
		} else if f != r.FilePath {
			full[base] = ""
		}
	}
	changed := false
	for i, r := range out {
		if f := full[r.FilePath]; f != "" {
			out[i].FilePath, changed = f, true
		}
	}
	return changed
}

// noteFrame remembers an absolute stack-frame path inside the workspace,
// so that, when no root is known, the frames' common directory can serve.
func (p *parser) noteFrame(file string) {
	if len(p.frames) >= 32 || !hasPrefix(file, "/") || isForeign(file) {
		return
	}
	for _, f := range p.frames {
		if f == file {
			return
		}
	}
	p.frames = append(p.frames, own(path.Clean(file)))
}

// noteRel remembers a relative path the log names (pytest's "FAILED
// path::test"), to pair it with an absolute path of the same file.
func (p *parser) noteRel(rel string) {
	rel = path.Clean(rel)
	if len(p.rels) >= 32 || hasPrefix(rel, "/") || hasPrefix(rel, "..") {
		return
	}
	p.rels = append(p.rels, own(rel))
}

// pairedRoot finds the root that turns a reported absolute path into a
// relative path the log also names.
func pairedRoot(out []contract.BugReport, rels []string) string {
	for _, r := range out {
		if !hasPrefix(r.FilePath, "/") {
			continue
		}
		for _, rel := range rels {
			if hasSuffix(r.FilePath, "/"+rel) {
				if root := strings.TrimSuffix(r.FilePath, "/"+rel); root != "" {
					return root
				}
			}
		}
	}
	return ""
}

// commonDir is the deepest directory holding all files, if they lie in at
// least two different directories (one file alone says nothing of the
// root), and it is not the file system root.
func commonDir(files []string) string {
	if len(files) < 2 {
		return ""
	}
	dirs := map[string]bool{}
	common := path.Dir(files[0])
	for _, f := range files {
		d := path.Dir(f)
		dirs[d] = true
		for common != "/" && d != common && !hasPrefix(d, common+"/") {
			common = path.Dir(common)
		}
	}
	if len(dirs) < 2 || common == "/" || strings.Count(common, "/") < 2 {
		return ""
	}
	return common
}

// Context lines: make's directory changes, `cd dir && tool`, go vet.
var (
	reEnterDir = mustRe(`^(?:g?make|gmake)(?:\[\d+\])?: (Entering|Leaving) directory [` + "`'\"" + `](.+?)['"]$`)
	reCd       = mustRe(`(?:^|&&|;|\|\|)\s*(?:builtin )?cd\s+("[^"]+"|'[^']+'|[^\s;&|]+)\s*(?:&&|;|$)`)
)

// cmdPrefixes start the lines where CI systems and shells echo a command:
// GitLab's "$ ", set -x's "+ ", "> ", GitHub Actions' "Run " (grouped or
// not) and "[command]/bin/bash -c ", and "/bin/sh -c ".
var cmdPrefixes = []string{"$ ", "+ ", "> ", "##[group]Run ", "Run ", "[command]/bin/bash -c ", "/bin/sh -c "}

// cmdLinePrefix returns the command-echo prefix s starts with, or "".
func cmdLinePrefix(s string) string {
	for _, pre := range cmdPrefixes {
		if hasPrefix(s, pre) {
			return pre
		}
	}
	return ""
}

func (p *parser) trackContext(s string) {
	if len(s) < 5 {
		return
	}
	if len(p.ctx.javaWarn) > 0 && strings.Contains(s, "warnings found and -Werror specified") {
		p.ctx.werror = true
		for _, f := range p.ctx.javaWarn {
			p.emit(f)
		}
		p.ctx.javaWarn = nil
	}
	if p.res.root == "" {
		p.rootHint(s)
	}
	switch s[0] {
	case 'm', 'g':
		if !hasPrefix(s, "make") && !hasPrefix(s, "gmake") {
			break // the expression's two starts
		}
		if m := reEnterDir.FindStringSubmatch(s); m != nil {
			p.enterDir(m[1] == "Entering", m[2])
		}
	case '$', '+', '>', '#', 'R', '[', '/':
		if pre := cmdLinePrefix(s); pre != "" {
			p.commandLine(pre, s[len(pre):])
		}
	case 'c':
		// make echoes its recipes bare: "cd sub && go test ./..."
		if hasPrefix(s, "cd ") && strings.Contains(s, "&&") {
			p.commandLine("", s)
		}
	}
}

// rootHint learns the workspace root from tools that print it: pytest's
// "rootdir: DIR", vitest's " RUN  vX.Y.Z DIR", cargo's "Compiling name vX
// (DIR)".
func (p *parser) rootHint(s string) {
	t := strings.TrimSpace(s)
	switch {
	case hasPrefix(t, "rootdir: "):
		dir := strings.TrimPrefix(t, "rootdir: ")
		if i := strings.IndexByte(dir, ','); i >= 0 {
			dir = dir[:i]
		}
		p.res.learnRoot(own(dir))
	case hasPrefix(t, "RUN  v"):
		if f := strings.Fields(t); len(f) == 3 {
			p.res.learnRoot(own(f[2]))
		}
	case hasPrefix(t, "Compiling ") && hasSuffix(t, ")"):
		if i := strings.LastIndex(t, " ("); i > 0 && hasPrefix(t[i+2:], "/") {
			p.res.learnRoot(own(t[i+2 : len(t)-1]))
		}
	}
}

func (p *parser) enterDir(enter bool, dir string) {
	d := normalise(dir)
	if rel, ok := p.res.stripRoot(d); ok {
		d = rel
	}
	if enter {
		if len(p.ctx.dirs) < 32 {
			p.ctx.dirs = append(p.ctx.dirs, d)
		}
		return
	}
	if n := len(p.ctx.dirs); n > 0 {
		p.ctx.dirs = p.ctx.dirs[:n-1]
	}
}

// commandLine follows `cd dir && tool` in echoed commands. A new top-level
// command ("$ " in GitLab, "Run " in GitHub Actions) starts at the root.
func (p *parser) commandLine(prefix, cmd string) {
	var m []string
	if strings.Contains(cmd, "cd") {
		m = reCd.FindStringSubmatch(cmd)
	}
	if strings.Contains(prefix, "Run ") {
		p.ctx.base = ""
	}
	if m == nil {
		if strings.Contains(cmd, "go vet") {
			p.ctx.goVet = true
		} else if strings.Contains(cmd, "go ") {
			p.ctx.goVet = false
		}
		return
	}
	d := normalise(m[1])
	if strings.ContainsAny(d, "$`~*") {
		return // a variable or glob we cannot follow
	}
	if rel, ok := p.res.stripRoot(d); ok {
		d = rel
	}
	if d == "." {
		d = ""
	}
	if hasPrefix(d, "/") || p.ctx.base == "" {
		p.ctx.base = d
	} else {
		p.ctx.base = path.Join(p.ctx.base, d)
	}
	p.ctx.goVet = strings.Contains(cmd, "go vet")
}

func mustRe(s string) *lazyre.Regexp { return lazyre.New(s) }

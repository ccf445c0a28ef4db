package logparse

import (
	"bufio"
	"errors"
	"io"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
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

// run feeds every line of r to p and returns the reports.
func (p *parser) run(r io.Reader) ([]contract.BugReport, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 || err == nil {
			p.feed(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return p.finish(), errors.Join(ErrInput, err)
		}
	}
	return p.finish(), nil
}

// ParseString is Parse over a string.
func ParseString(log string, opts Options) []contract.BugReport {
	out, _ := Parse(strings.NewReader(log), opts)
	return out
}

// readLine returns the next line without its newline; over-long lines are
// cut at MaxLineLength and the rest is discarded.
func readLine(br *bufio.Reader) (string, error) {
	b, err := br.ReadSlice('\n')
	if err == nil || err == io.EOF {
		return string(b), err
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return string(b), err
	}
	keep := string(b)
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = br.ReadSlice('\n')
	}
	if len(keep) > MaxLineLength {
		keep = keep[:MaxLineLength]
	}
	if err == io.EOF {
		return keep, io.EOF
	}
	return keep, err
}

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
	seen     map[string]int
	syntax   map[string]int // file -> line of its first SYNTAX report
	handlers []handler
	ctx      context
	used     map[string]int // reports per row, when counting (tests)
}

// context is what earlier lines said about later ones.
type context struct {
	base      string    // directory of `cd dir && tool`, relative to the root or absolute
	dirs      []string  // make's "Entering directory" stack
	goVet     bool      // inside `go vet` output
	maven     bool      // the log is a Maven build
	javaTest  string    // the JUnit test a stack trace belongs to
	werror    bool      // javac -Werror seen
	javaWarn  []finding // javac warnings, reported if -Werror follows
	modPath   string    // the Go module path, when known
	pyTest    string    // the pytest test whose section is being read
	lastBlank bool
}

func newParser(opts Options) *parser {
	p := &parser{
		opts:   opts,
		res:    newResolver(opts.Root, opts.Workspace),
		max:    opts.MaxReports,
		seen:   map[string]int{},
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
	s := cleanLine(raw)
	if len(s) > MaxLineLength {
		s = s[:MaxLineLength]
	}
	p.trackContext(s)
	for _, h := range p.handlers {
		if h.line(p, s) {
			return
		}
	}
	p.matchRows(s)
	p.ctx.lastBlank = strings.TrimSpace(s) == ""
}

// matchRows tries the single-line rows in table order; the first that
// matches and classifies wins.
func (p *parser) matchRows(s string) {
	if len(s) < 4 {
		return
	}
	f := features(s)
	if f == 0 {
		return
	}
	for _, r := range table {
		if r.re == nil || r.need&f != r.need {
			continue
		}
		if r.Hint != "" && !strings.Contains(s, r.Hint) {
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
		p.emit(finding{
			file: m.get("file"), line: m.num("line"), col: m.num("col"), typ: t,
			msg: msg, tool: r.Tool, rule: rule, sev: normSeverity(m.get("sev")),
			conf: r.Confidence, base: p.base(), row: r.Name,
		})
		return
	}
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
// workspace, a duplicate, or a cascade of an earlier error.
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
	key := rel + ":" + strconv.Itoa(f.line)
	if i, ok := p.seen[key]; ok {
		if p.out[i].TestName == nil && f.test != "" {
			t := f.test
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
	msg := strings.TrimRight(f.msg, " \t\n")
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	r := contract.BugReport{
		FilePath: rel, LineNumber: f.line, ErrorType: f.typ, Message: msg,
		ConfidenceScore: &conf, Column: f.col, Tool: f.tool, Rule: f.rule, Severity: f.sev,
	}
	if r.Column < 0 {
		r.Column = 0
	}
	if f.test != "" {
		t := f.test
		r.TestName = &t
	}
	p.seen[key] = len(p.out)
	p.out = append(p.out, r)
}

var eofCascade = mustRe(`(?i)end of (?:file|input)|unexpected EOF|unclosed delimiter|'}' expected|expected '}'`)

// finish flushes the handlers and returns the reports, never nil.
func (p *parser) finish() []contract.BugReport {
	for _, h := range p.handlers {
		h.flush(p)
	}
	if p.out == nil {
		return []contract.BugReport{}
	}
	return p.out
}

// Context lines: make's directory changes, `cd dir && tool`, go vet.
var (
	reEnterDir = mustRe(`^(?:g?make|gmake)(?:\[\d+\])?: (Entering|Leaving) directory [` + "`'\"" + `](.+?)['"]$`)
	reCmdLine  = mustRe(`^(\$ |\+ |> |##\[group\]Run |Run |\[command\]/bin/bash -c |/bin/sh -c )(.*)$`)
	reCd       = mustRe(`(?:^|&&|;|\|\|)\s*(?:builtin )?cd\s+("[^"]+"|'[^']+'|[^\s;&|]+)\s*(?:&&|;|$)`)
)

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
	switch s[0] {
	case 'm', 'g':
		if m := reEnterDir.FindStringSubmatch(s); m != nil {
			p.enterDir(m[1] == "Entering", m[2])
		}
	case '$', '+', '>', '#', 'R', '[', '/':
		if m := reCmdLine.FindStringSubmatch(s); m != nil {
			p.commandLine(m[1], m[2])
		}
	case 'c':
		// make echoes its recipes bare: "cd sub && go test ./..."
		if strings.HasPrefix(s, "cd ") && strings.Contains(s, "&&") {
			p.commandLine("", s)
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
	m := reCd.FindStringSubmatch(cmd)
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
	if strings.HasPrefix(d, "/") || p.ctx.base == "" {
		p.ctx.base = d
	} else {
		p.ctx.base = path.Join(p.ctx.base, d)
	}
	p.ctx.goVet = strings.Contains(cmd, "go vet")
}

func mustRe(s string) *regexp.Regexp { return regexp.MustCompile(s) }

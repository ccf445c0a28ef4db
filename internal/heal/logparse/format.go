package logparse

import (
	"fmt"
	"go/format"
	"path"
	"strings"

	"github.com/salve-dev/salve/contract"
)

func init() {
	register(
		&Row{Name: "gofmt-list", Family: "go", Tool: "gofmt",
			Doc: "gofmt -l and goimports -l: bare .go paths right after a line that names gofmt or goimports (the step's command or its message); each file's unformatted runs located with go/format when the workspace is given, else line 1"},
		&Row{Name: "format-diff", Family: "format", Tool: "gofmt",
			Doc: "a formatter's unified diff of a file against itself (gofmt -d, goimports -d, black --diff, ruff format --diff): one report per changed run"},
		&Row{Name: "format-check", Family: "format", Tool: "black",
			Doc: "formatters that name files only: black --check (would reformat F), ruff format --check (Would reformat: F), prettier --check ([warn] F after Checking formatting...): line 1, unless a diff of the same file located its runs"},
		&Row{Name: "clang-format", Family: "c", Tool: "clang-format", Hint: "clang-format-violations",
			Pattern: `^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?:error|warning): (?P<msg>code should be clang-formatted) \[-Wclang-format-violations\]$`,
			Classify: func(m *match) (contract.ErrorType, bool) {
				m.rule = "clang-format"
				m.set("col", "")
				return contract.ErrLinting, true
			},
			Confidence: 0.9,
			Doc:        "clang-format --dry-run -Werror: file:line:col: error: code should be clang-formatted [-Wclang-format-violations], one report per line"},
	)
	addHandler(25, func() handler { return &formatReader{} })
}

// maxListed bounds the files one formatter listing reports.
const maxListed = 256

// formatReader reads the formatters' output: gofmt -l listings, their
// diffs, and the check modes that name files only.
type formatReader struct {
	list string // the formatter whose listing of .go files may follow, "" when none
	// diff state: the file of the diff being read, its formatter, and the
	// old line of the next hunk line.
	diffFile, diffTool string
	oldLine            int
	oldLeft, newLeft   int // lines of the current hunk still to read
	run                *span
	held               string // a "--- F" line waiting for its "+++ F"
	diffCmd            string // the formatter a "diff F.orig F" header names
	prettier           bool   // "Checking formatting..." seen
	located            map[string]bool
	checked            []finding // file-only reports, emitted at the end unless a diff located the file
}

func (r *formatReader) line(p *parser, s string) bool {
	if r.diffFile != "" {
		if r.diffLine(p, s) {
			return true
		}
	}
	if r.held != "" {
		old := r.held
		r.held = ""
		if f, ok := diffHeader(s, "+++ "); ok && sameFormatted(old, f) {
			r.startDiff(p, old, f)
			return true
		}
	}
	if hasPrefix(s, "diff ") && strings.Contains(s, ".orig ") {
		// gofmt -d's header is "diff F.orig F", goimports -d's "diff -u F.orig F".
		r.diffCmd = "gofmt"
		if hasPrefix(s, "diff -u ") {
			r.diffCmd = "goimports"
		}
		return true
	}
	if f, ok := diffHeader(s, "--- "); ok && isSourceFile(f) {
		r.held = own(s[4:])
		return true
	}
	if r.list != "" {
		if f, ok := bareGoPath(s); ok {
			r.listed(p, f)
			return true
		}
		if !isBlank(s) {
			r.list = ""
		}
	}
	return r.fileOnly(p, s)
}

// fileOnly reads the lines that name a whole file, and the markers that
// start a listing.
func (r *formatReader) fileOnly(p *parser, s string) bool {
	// The lines named here start with one of four bytes once trimmed:
	// most lines are turned down by their first.
	if c := trimmedLead(s); c == 'w' || c == 'W' || c == 'C' || c == '[' {
		t := strings.TrimSpace(s)
		switch {
		case hasPrefix(t, "would reformat "):
			return r.check(p, strings.TrimPrefix(t, "would reformat "), "black")
		case hasPrefix(t, "Would reformat: "):
			return r.check(p, strings.TrimPrefix(t, "Would reformat: "), "ruff format")
		case t == "Checking formatting...":
			r.prettier = true
			return true
		case r.prettier && hasPrefix(t, "[warn] "):
			if f := strings.TrimPrefix(t, "[warn] "); !strings.ContainsAny(f, " \t") {
				return r.check(p, f, "prettier")
			}
			return true // prettier's summary line
		}
	}
	// Neither name holds white space, so s holds it where its trimmed
	// form does.
	if p.mask&goFormatterMask != goFormatterMask || !namesGoFormatter(s) {
		return false
	}
	if t := strings.TrimSpace(s); len(t) < 200 {
		if _, ok := bareGoPath(t); !ok && !strings.Contains(t, ".go:") {
			r.list = "gofmt"
			if strings.Contains(t, "goimports") {
				r.list = "goimports"
			}
		}
	}
	return false
}

func (r *formatReader) check(p *parser, file, tool string) bool {
	if file == "" || strings.ContainsAny(file, " \t") || len(r.checked) >= maxListed {
		return true
	}
	r.checked = append(r.checked, finding{file: own(file), line: 1, typ: contract.ErrLinting,
		msg: tool + " would reformat this file", tool: tool, rule: ruleOf(tool), conf: 0.6, base: p.base(), row: "format-check"})
	return true
}

// listed reports a file a gofmt or goimports listing names: at each run
// of lines go/format changes when the workspace holds the file, else at
// line 1.
func (r *formatReader) listed(p *parser, file string) {
	base := finding{file: own(file), typ: contract.ErrLinting, tool: r.list, rule: r.list, base: p.base(), row: "gofmt-list"}
	spans := p.gofmtSpans(file)
	if len(spans) == 0 {
		f := base
		f.line, f.conf, f.msg = 1, 0.6, r.list+" would reformat this file"
		p.emit(f)
		return
	}
	for _, sp := range spans {
		f := base
		f.line, f.conf, f.msg = sp.reportLine(), 0.9, spanMessage(r.list, sp)
		p.emit(f)
	}
}

// gofmtSpans runs go/format on a Go file of the workspace and returns the
// runs of lines it changes; nil without a workspace, when the file does
// not parse, or when it is already formatted.
func (p *parser) gofmtSpans(file string) []span {
	if p.opts.Workspace == "" {
		return nil
	}
	rel, res := p.res.resolve(file, p.base())
	if res == resDrop {
		return nil
	}
	src := readWorkspaceFile(p.opts.Workspace, rel)
	if src == "" {
		return nil
	}
	out, err := format.Source([]byte(src))
	if err != nil {
		return nil
	}
	spans, _ := diffSpans(strings.Split(src, "\n"), strings.Split(string(out), "\n"))
	if len(spans) > maxListed {
		spans = spans[:maxListed]
	}
	return spans
}

func spanMessage(tool string, sp span) string {
	switch {
	case sp.hi < sp.lo:
		return fmt.Sprintf("%s would reformat this file: lines to insert after line %d (not formatted)", tool, sp.hi)
	case sp.lo == sp.hi:
		return fmt.Sprintf("%s would reformat this file: line %d is not formatted", tool, sp.lo)
	}
	return fmt.Sprintf("%s would reformat this file: lines %d-%d are not formatted", tool, sp.lo, sp.hi)
}

// ruleOf is a formatter's rule name: its name, with a dash for a
// subcommand.
func ruleOf(tool string) string { return strings.ReplaceAll(tool, " ", "-") }

// diffHeader reads "--- F" or "+++ F" (F possibly followed by a tab and a
// timestamp) and returns F.
func diffHeader(s, prefix string) (string, bool) {
	if !hasPrefix(s, prefix) {
		return "", false
	}
	f := s[len(prefix):]
	if i := strings.IndexByte(f, '\t'); i >= 0 {
		f = f[:i]
	}
	if f == "" || len(f) > 4096 || strings.IndexByte(f, ' ') >= 0 || strings.IndexByte(f, '"') >= 0 || strings.IndexByte(f, '\'') >= 0 {
		return "", false
	}
	return f, true
}

// goFormatterMask holds the bytes "gofmt" and "goimports" share.
var goFormatterMask = maskOf("gofmt") & maskOf("goimports")

// namesGoFormatter reports whether s holds "gofmt" or "goimports", the
// formatters whose listing may follow: one search for the "go" they
// start with serves both.
func namesGoFormatter(s string) bool {
	for {
		i := strings.Index(s, "go")
		if i < 0 {
			return false
		}
		if s = s[i+2:]; hasPrefix(s, "fmt") || hasPrefix(s, "imports") {
			return true
		}
	}
}

// sameFormatted reports whether a diff's two headers name one file (the
// old side may be gofmt's F.orig): a formatter's diff of a file against
// its formatted self, which git's a/ and b/ sides never are.
func sameFormatted(oldHeader, newFile string) bool {
	old, _ := diffHeader("--- "+oldHeader, "--- ")
	return old == newFile || old == newFile+".orig"
}

var formatExts = []string{".go", ".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".rs", ".css", ".json", ".md"}

func isSourceFile(f string) bool {
	f = strings.TrimSuffix(f, ".orig")
	ext := path.Ext(f)
	for _, e := range formatExts {
		if e == ext {
			return true
		}
	}
	return false
}

func (r *formatReader) startDiff(p *parser, oldHeader, file string) {
	r.diffFile, r.oldLine, r.oldLeft, r.newLeft, r.run = own(file), 0, 0, 0, nil
	switch {
	case hasSuffix(oldHeader, ".orig") || strings.Contains(oldHeader, ".orig\t"):
		r.diffTool = "gofmt"
		if r.diffCmd != "" {
			r.diffTool = r.diffCmd
		}
	case hasSuffix(file, ".py") || hasSuffix(file, ".pyi"):
		r.diffTool = "ruff format"
		if strings.Contains(oldHeader, "\t") {
			r.diffTool = "black" // black dates both sides
		}
	case hasSuffix(file, ".go"):
		r.diffTool = "gofmt"
	default:
		r.diffTool = "formatter"
	}
	if r.located == nil {
		r.located = map[string]bool{}
	}
	if len(r.located) < maxListed {
		r.located[r.diffFile] = true
	}
}

// diffLine reads one line of a formatter's diff; false ends the diff.
// A hunk's header gives its old and new line counts, so the diff ends at
// the first line after a complete hunk that starts no other hunk.
func (r *formatReader) diffLine(p *parser, s string) bool {
	if r.oldLeft == 0 && r.newLeft == 0 {
		r.endRun(p)
		if old, n, m, ok := hunkHeader(s); ok {
			r.oldLine, r.oldLeft, r.newLeft = old, n, m
			if old == 0 {
				r.oldLine = 1 // a hunk of a file that was empty
			}
			return true
		}
		if r.oldLine == 0 && hasPrefix(s, "diff ") {
			return true
		}
		r.diffFile = ""
		return false
	}
	c := byte(' ') // an empty line is a context line whose space a log trimmed
	if s != "" {
		c = s[0]
	}
	switch c {
	case ' ':
		r.endRun(p)
		r.oldLine++
		r.oldLeft--
		r.newLeft--
	case '-', '+':
		if r.run == nil {
			r.run = &span{r.oldLine, r.oldLine - 1}
		}
		if c == '-' {
			r.run.hi = r.oldLine
			r.oldLine++
			r.oldLeft--
		} else {
			r.newLeft--
		}
	case '\\':
		// "\ No newline at end of file"
	default:
		r.endRun(p)
		r.oldLeft, r.newLeft, r.diffFile = 0, 0, ""
		return false
	}
	if r.oldLeft < 0 || r.newLeft < 0 {
		r.oldLeft, r.newLeft = 0, 0
	}
	return true
}

func (r *formatReader) endRun(p *parser) {
	if r.run == nil {
		return
	}
	sp := *r.run
	r.run = nil
	p.emit(finding{file: r.diffFile, line: sp.reportLine(), typ: contract.ErrLinting, msg: spanMessage(r.diffTool, sp),
		tool: r.diffTool, rule: ruleOf(r.diffTool), conf: 0.9, base: p.base(), row: "format-diff"})
}

// hunkHeader reads "@@ -a,b +c,d @@": the old start line and the old and
// new line counts (a count left out is 1).
func hunkHeader(s string) (old, n, m int, ok bool) {
	f := strings.Fields(s)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" || !hasPrefix(f[1], "-") || !hasPrefix(f[2], "+") {
		return 0, 0, 0, false
	}
	old, n, ok1 := hunkRange(f[1][1:])
	_, m, ok2 := hunkRange(f[2][1:])
	return old, n, m, ok1 && ok2 && n+m > 0 && n+m < 1<<20
}

func hunkRange(s string) (start, count int, ok bool) {
	a, b, two := strings.Cut(s, ",")
	if a == "" || len(a) > 9 || strings.Trim(a, "0123456789") != "" {
		return 0, 0, false
	}
	count = 1
	if two {
		if b == "" || len(b) > 9 || strings.Trim(b, "0123456789") != "" {
			return 0, 0, false
		}
		count = atoi(b)
	}
	return atoi(a), count, true
}

// bareGoPath reads a line that is only a relative or absolute .go path.
func bareGoPath(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if len(t) < 4 || len(t) > 4096 || !hasSuffix(t, ".go") || strings.ContainsAny(t, " \t:\"'`$*") || t[0] == '-' {
		return "", false
	}
	return strings.TrimPrefix(t, "./"), true
}

func (r *formatReader) flush(p *parser) {
	if r.diffFile != "" {
		r.endRun(p)
		r.diffFile = ""
	}
	for _, f := range r.checked {
		if rel, _ := p.res.resolve(f.file, f.base); r.located[f.file] || r.located[rel] {
			continue
		}
		p.emit(f)
	}
	r.checked = nil
}

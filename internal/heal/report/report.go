// Package report writes bug reports in the formats CI platforms and review
// tools read: SARIF 2.1.0 (GitHub code scanning and most IDEs), GitHub
// Actions workflow commands, GitLab Code Quality, and reviewdog's
// diagnostic format (rdjson and rdjsonl, with suggestions where a fix is
// known: [Options.Fixes]), besides salve's own JSON and one line of text
// per report.
//
// Every writer is a row of one table ([Formats]), takes the same
// [contract.BugReport] values that `salve parse` and `salve heal` produce,
// and never fails on odd content: messages with newlines, percent signs,
// commas or control characters are escaped as each format requires, and
// a path that is not a clean relative path is written as the parser gave
// it, never resolved against the file system. A format's documented limits
// are respected; what has to be cut is reported through [Options.Warn].
package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// Format names an output format.
type Format string

// The formats salve writes.
const (
	JSON    Format = "json"
	Text    Format = "text"
	SARIF   Format = "sarif"
	GitHub  Format = "github"
	GitLab  Format = "gitlab"
	RDJSON  Format = "rdjson"
	RDJSONL Format = "rdjsonl"
)

// ErrUnknownFormat is wrapped by ParseFormat for a name it does not know.
var ErrUnknownFormat = errors.New("unknown report format")

// Options carries what every writer may need besides the reports.
type Options struct {
	// ToolName names the producer; empty means "salve".
	ToolName string
	// ToolVersion is the producer's version, written where a format has a
	// place for it.
	ToolVersion string
	// InformationURI is the producer's home page, for SARIF.
	InformationURI string
	// Warn receives one line for each thing a writer had to leave out or
	// cut to stay within its format's limits. Nil discards them.
	Warn func(msg string)
	// Fixes holds known fixes of reports, keyed by the report's index in
	// the slice given to Write: a heal's verified fix of the lines a
	// report names. The rdjson and rdjsonl writers turn them into
	// suggestions; the other formats ignore them.
	Fixes map[int][]Fix
}

// Fix is a known correction in the file of a report: its lines StartLine
// to EndLine (1-based, inclusive) are replaced by Lines. An insertion has
// EndLine = StartLine-1 and goes before line StartLine; a deletion has no
// Lines.
type Fix struct {
	StartLine, EndLine int
	Lines              []string
}

func (o Options) tool() string {
	if o.ToolName == "" {
		return "salve"
	}
	return o.ToolName
}

func (o Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// writer is one row of the format table.
type writer struct {
	format Format
	doc    string
	write  func(w io.Writer, reports []contract.BugReport, o Options) error
}

var table = []writer{
	{JSON, "salve's JSON array of BugReport", writeJSON},
	{Text, "one line per report: path:line:col: TYPE message [tool rule]", writeText},
	{SARIF, "SARIF 2.1.0 log, for GitHub code scanning and SARIF viewers", writeSARIF},
	{GitHub, "GitHub Actions workflow commands (::error file=…,line=…::message)", writeGitHub},
	{GitLab, "GitLab Code Quality report (JSON array with fingerprints)", writeGitLab},
	{RDJSON, "reviewdog diagnostic format, one DiagnosticResult document", writeRDJSON},
	{RDJSONL, "reviewdog diagnostic format, one Diagnostic per line", writeRDJSONL},
}

// Formats returns the names of every format, in table order.
func Formats() []Format {
	out := make([]Format, len(table))
	for i, w := range table {
		out[i] = w.format
	}
	return out
}

// Describe returns a one-line description of f, or "" for an unknown one.
func Describe(f Format) string {
	for _, w := range table {
		if w.format == f {
			return w.doc
		}
	}
	return ""
}

// ParseFormat returns the format named s (case-insensitive), or an error
// wrapping ErrUnknownFormat that lists the known names.
func ParseFormat(s string) (Format, error) {
	want := Format(strings.ToLower(strings.TrimSpace(s)))
	for _, w := range table {
		if w.format == want {
			return w.format, nil
		}
	}
	names := make([]string, len(table))
	for i, w := range table {
		names[i] = string(w.format)
	}
	return "", fmt.Errorf("%w %q (known: %s)", ErrUnknownFormat, s, strings.Join(names, ", "))
}

// Write writes reports to w in format f.
func Write(w io.Writer, f Format, reports []contract.BugReport, o Options) error {
	for _, row := range table {
		if row.format == f {
			if reports == nil {
				reports = []contract.BugReport{}
			}
			return row.write(w, reports, o)
		}
	}
	_, err := ParseFormat(string(f))
	return err
}

func writeJSON(w io.Writer, reports []contract.BugReport, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(reports)
}

func writeText(w io.Writer, reports []contract.BugReport, _ Options) error {
	var b strings.Builder
	for _, r := range reports {
		b.WriteString(oneLine(r.String()))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// level is the three-step severity every format below maps to.
type level int

const (
	levelError level = iota
	levelWarning
	levelNote
)

func levelOf(r contract.BugReport) level {
	switch strings.ToLower(r.Severity) {
	case "warning", "warn":
		return levelWarning
	case "info", "note", "notice", "hint", "style":
		return levelNote
	}
	return levelError
}

// ruleID names what kind of finding r is: the tool's own rule when it has
// one (go vet's printf, ruff's F401), else salve's error type.
func ruleID(r contract.BugReport) string {
	if r.Rule != "" {
		if r.Tool != "" {
			return r.Tool + "/" + r.Rule
		}
		return r.Rule
	}
	return string(r.ErrorType)
}

// title is a short heading for r: its type and the tool that reported it.
func title(r contract.BugReport) string {
	t := string(r.ErrorType)
	if t == "" {
		t = "ERROR"
	}
	switch {
	case r.Tool != "" && r.Rule != "":
		return fmt.Sprintf("%s (%s %s)", t, r.Tool, r.Rule)
	case r.Tool != "":
		return fmt.Sprintf("%s (%s)", t, r.Tool)
	}
	return t
}

// oneLine folds r's line breaks into " ⏎ " so a message stays on one line
// where a format has no escape for them.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}

// cleanPath returns p with forward slashes, without a leading "./", for the
// formats that want a repository-relative path.
func cleanPath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// fingerprints gives each report a stable identity that survives the
// report moving to another line: a hash of the tool, rule, type, path and
// message (digits in the message left out, as they are often line numbers
// or counts), plus the report's rank among identical ones in the same
// file, so two equal findings in one file stay distinct.
func fingerprints(reports []contract.BugReport) []string {
	out := make([]string, len(reports))
	seen := map[string]int{}
	for i, r := range reports {
		key := strings.Join([]string{r.Tool, r.Rule, string(r.ErrorType), cleanPath(r.FilePath), stripDigits(r.Message)}, "\x00")
		n := seen[key]
		seen[key] = n + 1
		h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", key, n)))
		out[i] = hex.EncodeToString(h[:16])
	}
	return out
}

func stripDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, s)
}

// bySeverity returns the indexes of reports ordered errors first, then
// warnings, then notes, stable within a level.
func bySeverity(reports []contract.BugReport) []int {
	idx := make([]int, len(reports))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return levelOf(reports[idx[a]]) < levelOf(reports[idx[b]]) })
	return idx
}

// capMessage cuts s to at most n bytes on a rune boundary, marking the cut.
func capMessage(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + " …[cut]", true
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Severity returns the level every format maps r to: "error" (the
// default), "warning" or "note".
func Severity(r contract.BugReport) string {
	return [...]string{levelError: "error", levelWarning: "warning", levelNote: "note"}[levelOf(r)]
}

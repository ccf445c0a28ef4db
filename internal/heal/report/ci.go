package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// GitHub Actions workflow commands
// (::error file=F,line=L,col=C,title=T::message). The runner decodes %25,
// %0D and %0A in the message, and also %3A and %2C in property values, so
// those characters are encoded; nothing else needs escaping.

var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func ghCommand(l level) string {
	switch l {
	case levelWarning:
		return "warning"
	case levelNote:
		return "notice"
	}
	return "error"
}

func writeGitHub(w io.Writer, reports []contract.BugReport, o Options) error {
	var b strings.Builder
	for _, i := range bySeverity(reports) {
		r := reports[i]
		b.WriteString("::")
		b.WriteString(ghCommand(levelOf(r)))
		props := []string{}
		if p := cleanPath(r.FilePath); p != "" {
			props = append(props, "file="+ghProperty.Replace(p))
			if r.LineNumber >= 1 {
				props = append(props, "line="+strconv.Itoa(r.LineNumber))
				if r.Column >= 1 {
					props = append(props, "col="+strconv.Itoa(r.Column))
				}
			}
		}
		props = append(props, "title="+ghProperty.Replace(o.tool()+": "+title(r)))
		b.WriteByte(' ')
		b.WriteString(strings.Join(props, ","))
		b.WriteString("::")
		msg := r.Message
		if strings.TrimSpace(msg) == "" {
			msg = title(r)
		}
		b.WriteString(ghData.Replace(msg))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GitLab Code Quality (the Code Climate issue subset GitLab reads): an
// array of issues with description, check_name, fingerprint, severity and
// location.path/lines.begin. GitLab compares fingerprints between the
// merge request and its base, so they must not change when a finding only
// moves to another line.

type glIssue struct {
	Type        string     `json:"type"`
	Description string     `json:"description"`
	CheckName   string     `json:"check_name"`
	Fingerprint string     `json:"fingerprint"`
	Severity    string     `json:"severity"`
	Categories  []string   `json:"categories"`
	Location    glLocation `json:"location"`
}

type glLocation struct {
	Path  string  `json:"path"`
	Lines glLines `json:"lines"`
}

type glLines struct {
	Begin int `json:"begin"`
}

func glSeverity(r contract.BugReport) string {
	switch levelOf(r) {
	case levelWarning:
		return "minor"
	case levelNote:
		return "info"
	}
	if r.ErrorType == contract.ErrLinting {
		return "minor"
	}
	return "major"
}

func glCategory(t contract.ErrorType) string {
	switch t {
	case contract.ErrLinting, contract.ErrIndentation:
		return "Style"
	}
	return "Bug Risk"
}

func writeGitLab(w io.Writer, reports []contract.BugReport, _ Options) error {
	fps := fingerprints(reports)
	out := make([]glIssue, 0, len(reports))
	for i, r := range reports {
		line := r.LineNumber
		if line < 1 {
			line = 1
		}
		desc := oneLine(r.Message)
		if strings.TrimSpace(desc) == "" {
			desc = title(r)
		}
		out = append(out, glIssue{
			Type: "issue", Description: desc, CheckName: ruleID(r), Fingerprint: fps[i],
			Severity: glSeverity(r), Categories: []string{glCategory(r.ErrorType)},
			Location: glLocation{Path: cleanPath(r.FilePath), Lines: glLines{Begin: line}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// reviewdog's diagnostic format (rdformat): rdjson is one DiagnosticResult,
// rdjsonl one Diagnostic per line. Lines and columns are 1-based.

type rdResult struct {
	Source      rdSource       `json:"source"`
	Severity    string         `json:"severity,omitempty"`
	Diagnostics []rdDiagnostic `json:"diagnostics"`
}

type rdDiagnostic struct {
	Message        string         `json:"message"`
	Location       rdLocation     `json:"location"`
	Severity       string         `json:"severity"`
	Source         rdSource       `json:"source"`
	Code           *rdCode        `json:"code,omitempty"`
	Suggestions    []rdSuggestion `json:"suggestions,omitempty"`
	OriginalOutput string         `json:"original_output,omitempty"`
}

// rdSuggestion is a text edit that resolves a diagnostic: the range is
// replaced by text. A range whose positions have no column covers whole
// lines, end line included, and text holds the new lines without a final
// line break; an insertion is an empty range at column 1 of the line it
// goes before.
type rdSuggestion struct {
	Range rdRange `json:"range"`
	Text  string  `json:"text"`
}

type rdSource struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type rdCode struct {
	Value string `json:"value"`
}

type rdLocation struct {
	Path  string   `json:"path"`
	Range *rdRange `json:"range,omitempty"`
}

type rdRange struct {
	Start rdPosition  `json:"start"`
	End   *rdPosition `json:"end,omitempty"`
}

type rdPosition struct {
	Line   int `json:"line"`
	Column int `json:"column,omitempty"`
}

func rdSeverity(l level) string {
	switch l {
	case levelWarning:
		return "WARNING"
	case levelNote:
		return "INFO"
	}
	return "ERROR"
}

// rdSuggestions converts the fixes of a report, leaving out (with a
// warning) those whose lines make no range.
func rdSuggestions(i int, fixes []Fix, o Options) []rdSuggestion {
	var out []rdSuggestion
	for _, f := range fixes {
		switch {
		case f.StartLine < 1 || f.EndLine < f.StartLine-1:
			o.warn("rdjson: report %d: a fix of lines %d-%d left out: not a line range", i, f.StartLine, f.EndLine)
		case f.EndLine == f.StartLine-1: // an insertion before StartLine
			at := rdPosition{Line: f.StartLine, Column: 1}
			out = append(out, rdSuggestion{Range: rdRange{Start: at, End: &at}, Text: strings.Join(f.Lines, "\n") + "\n"})
		default:
			out = append(out, rdSuggestion{Range: rdRange{Start: rdPosition{Line: f.StartLine}, End: &rdPosition{Line: f.EndLine}},
				Text: strings.Join(f.Lines, "\n")})
		}
	}
	return out
}

func rdDiagnostics(reports []contract.BugReport, o Options) []rdDiagnostic {
	out := make([]rdDiagnostic, 0, len(reports))
	for i, r := range reports {
		d := rdDiagnostic{
			Message:  r.Message,
			Location: rdLocation{Path: cleanPath(r.FilePath)},
			Severity: rdSeverity(levelOf(r)),
			Source:   rdSource{Name: o.tool()},
			Code:     &rdCode{Value: ruleID(r)},
		}
		if r.Tool != "" {
			d.Source.Name = r.Tool
		}
		if strings.TrimSpace(d.Message) == "" {
			d.Message = title(r)
		}
		if r.LineNumber >= 1 {
			d.Location.Range = &rdRange{Start: rdPosition{Line: r.LineNumber, Column: max(r.Column, 0)}}
		}
		if fixes := o.Fixes[i]; len(fixes) > 0 && d.Location.Path != "" {
			d.Suggestions = rdSuggestions(i, fixes, o)
		}
		out = append(out, d)
	}
	return out
}

func writeRDJSON(w io.Writer, reports []contract.BugReport, o Options) error {
	res := rdResult{Source: rdSource{Name: o.tool(), URL: o.InformationURI}, Diagnostics: rdDiagnostics(reports, o)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

func writeRDJSONL(w io.Writer, reports []contract.BugReport, o Options) error {
	enc := json.NewEncoder(w)
	for _, d := range rdDiagnostics(reports, o) {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("rdjsonl: %w", err)
		}
	}
	return nil
}

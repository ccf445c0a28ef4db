package report_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// corpusCases are real logs recorded from the real tools (the parser's
// corpus), one per family, so every writer is checked on what a build
// really prints.
var corpusCases = []string{
	"c/gcc-undeclared",
	"c/ld-undefined-reference",
	"go/vet-printf",
	"python/pytest-assert",
	"python/flake8",
	"rust/test-assert-eq",
	"rust/clippy-warnings",
	"go/build-syntax",
	"java/javac-cannot-find-symbol",
	"ts/tsc-type-error",
}

// corpusReports parses the recorded log of a corpus case.
func corpusReports(t *testing.T, name string) []contract.BugReport {
	t.Helper()
	dir := filepath.Join("..", "logparse", "testdata", "corpus", filepath.FromSlash(name))
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("corpus case %s: %v", name, err)
	}
	_, _, opts, err := logparse.ReadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reports, err := logparse.Parse(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) == 0 {
		t.Fatalf("corpus case %s gave no reports", name)
	}
	return reports
}

func existingCases(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, c := range corpusCases {
		if _, err := os.Stat(filepath.Join("..", "logparse", "testdata", "corpus", filepath.FromSlash(c))); err == nil {
			out = append(out, c)
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d of the corpus cases exist: %v", len(out), out)
	}
	return out
}

func write(t *testing.T, f report.Format, reports []contract.BugReport) ([]byte, []string) {
	t.Helper()
	var buf bytes.Buffer
	var warns []string
	err := report.Write(&buf, f, reports, report.Options{ToolVersion: "test", Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatalf("write %s: %v", f, err)
	}
	return buf.Bytes(), warns
}

// TestGolden pins every format's output on real logs.
func TestGolden(t *testing.T) {
	for _, name := range existingCases(t) {
		reports := corpusReports(t, name)
		for _, f := range report.Formats() {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				got, _ := write(t, f, reports)
				golden := filepath.Join("testdata", strings.ReplaceAll(name, "/", "_")+"."+string(f))
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s:\n%s", f, golden, got)
				}
			})
		}
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    report.Format
		wantErr bool
	}{
		{"sarif", report.SARIF, false},
		{" SARIF ", report.SARIF, false},
		{"github", report.GitHub, false},
		{"gitlab", report.GitLab, false},
		{"rdjson", report.RDJSON, false},
		{"rdjsonl", report.RDJSONL, false},
		{"json", report.JSON, false},
		{"text", report.Text, false},
		{"", "", true},
		{"xml", "", true},
		{"sarif2", "", true},
	}
	for _, tt := range tests {
		got, err := report.ParseFormat(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && report.Describe(got) == "" {
			t.Errorf("format %s has no description", got)
		}
	}
}

// hostile holds reports whose content every format must escape: line
// breaks, the characters workflow commands use as separators, percent
// signs, a path with spaces and '#', and an empty message.
func hostile() []contract.BugReport {
	conf := 0.9
	test := "TestX/sub,case"
	return []contract.BugReport{
		{FilePath: "src/a b#c.go", LineNumber: 3, Column: 2, ErrorType: contract.ErrTypeError, Message: "line one\nline two: 100% sure, really\r\n::error::injected", Tool: "go"},
		{FilePath: "./pkg/x.py", LineNumber: 1, ErrorType: contract.ErrLinting, Message: "", Tool: "ruff", Rule: "F401", Severity: "warning", TestName: &test, ConfidenceScore: &conf},
		{FilePath: "/abs/outside.c", LineNumber: 9, ErrorType: contract.ErrSyntax, Message: "expected ';'", Severity: "info"},
	}
}

var ghLine = regexp.MustCompile(`^::(error|warning|notice) ((?:[a-z]+=[^,:]*)(?:,[a-z]+=[^,:]*)*)::(.*)$`)

func ghUnescape(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

// TestGitHubCommands checks the documented workflow-command shape: one
// line per report, properties without raw separators, and a message that
// decodes back to the original.
func TestGitHubCommands(t *testing.T) {
	in := hostile()
	out, _ := write(t, report.GitHub, in)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(in) {
		t.Fatalf("%d lines for %d reports:\n%s", len(lines), len(in), out)
	}
	// Errors come first, then warnings, then notices.
	wantCmd := []string{"error", "warning", "notice"}
	wantMsg := []string{in[0].Message, "LINTING (ruff F401)", in[2].Message}
	for i, l := range lines {
		m := ghLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %d is not a workflow command: %q", i, l)
		}
		if m[1] != wantCmd[i] {
			t.Errorf("line %d: command %s, want %s", i, m[1], wantCmd[i])
		}
		props := map[string]string{}
		for _, p := range strings.Split(m[2], ",") {
			k, v, _ := strings.Cut(p, "=")
			props[k] = ghUnescape(v)
		}
		if props["file"] == "" || props["title"] == "" {
			t.Errorf("line %d lacks file or title: %v", i, props)
		}
		if _, err := strconv.Atoi(props["line"]); err != nil {
			t.Errorf("line %d: line=%q", i, props["line"])
		}
		msg := ghUnescape(m[3])
		if msg != wantMsg[i] {
			t.Errorf("line %d: message decodes to %q", i, msg)
		}
	}
	if !strings.Contains(string(out), "file=src/a b#c.go,line=3,col=2") {
		t.Errorf("path or position lost:\n%s", out)
	}
	if !strings.Contains(string(out), "file=pkg/x.py") {
		t.Errorf("./ not stripped:\n%s", out)
	}
}

// TestGitLabCodeQuality checks the fields GitLab documents as required,
// the severity enum, unique fingerprints, and that a fingerprint does not
// change when a finding only moves to another line.
func TestGitLabCodeQuality(t *testing.T) {
	in := hostile()
	in = append(in, in[0]) // the same finding twice in one file
	out, _ := write(t, report.GitLab, in)
	var issues []map[string]any
	if err := json.Unmarshal(out, &issues); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(issues) != len(in) {
		t.Fatalf("%d issues for %d reports", len(issues), len(in))
	}
	sev := map[string]bool{"info": true, "minor": true, "major": true, "critical": true, "blocker": true}
	seen := map[string]bool{}
	for i, is := range issues {
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			if s, _ := is[k].(string); s == "" {
				t.Errorf("issue %d: %s missing or empty: %v", i, k, is)
			}
		}
		if !sev[is["severity"].(string)] {
			t.Errorf("issue %d: severity %v", i, is["severity"])
		}
		loc, _ := is["location"].(map[string]any)
		lines, _ := loc["lines"].(map[string]any)
		if p, _ := loc["path"].(string); p == "" || lines["begin"] == nil || lines["begin"].(float64) < 1 {
			t.Errorf("issue %d: location %v", i, loc)
		}
		fp := is["fingerprint"].(string)
		if seen[fp] {
			t.Errorf("issue %d: duplicate fingerprint %s", i, fp)
		}
		seen[fp] = true
	}
	moved := hostile()
	moved[0].LineNumber += 40
	out2, _ := write(t, report.GitLab, moved)
	var issues2 []map[string]any
	if err := json.Unmarshal(out2, &issues2); err != nil {
		t.Fatal(err)
	}
	if issues[0]["fingerprint"] != issues2[0]["fingerprint"] {
		t.Errorf("fingerprint changed when the finding moved: %v vs %v", issues[0]["fingerprint"], issues2[0]["fingerprint"])
	}
}

// TestRDJSON checks reviewdog's documented shape: 1-based positions, the
// severity enum, and one Diagnostic per line for rdjsonl.
func TestRDJSON(t *testing.T) {
	in := hostile()
	out, _ := write(t, report.RDJSON, in)
	var res struct {
		Source      struct{ Name string }
		Diagnostics []json.RawMessage
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if res.Source.Name != "salve" || len(res.Diagnostics) != len(in) {
		t.Fatalf("source %q, %d diagnostics", res.Source.Name, len(res.Diagnostics))
	}
	outl, _ := write(t, report.RDJSONL, in)
	sc := bufio.NewScanner(bytes.NewReader(outl))
	n := 0
	for sc.Scan() {
		var d struct {
			Message  string
			Severity string
			Location struct {
				Path  string
				Range *struct{ Start struct{ Line, Column int } }
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if d.Message == "" || d.Location.Path == "" || d.Location.Range == nil || d.Location.Range.Start.Line < 1 {
			t.Errorf("line %d: %+v", n, d)
		}
		switch d.Severity {
		case "ERROR", "WARNING", "INFO":
		default:
			t.Errorf("line %d: severity %q", n, d.Severity)
		}
		if !bytes.Equal(sc.Bytes(), compact(t, res.Diagnostics[n])) {
			t.Errorf("rdjsonl line %d differs from the rdjson diagnostic", n)
		}
		n++
	}
	if n != len(in) {
		t.Errorf("%d rdjsonl lines for %d reports", n, len(in))
	}
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSARIFLimits checks that a run never holds more results than code
// scanning keeps, that the most severe are kept, and that the cut is
// reported both to the caller and inside the log.
func TestSARIFLimits(t *testing.T) {
	var in []contract.BugReport
	for i := 0; i < report.MaxSARIFResults+700; i++ {
		sev := "warning"
		if i%10 == 0 {
			sev = "" // an error
		}
		in = append(in, contract.BugReport{FilePath: fmt.Sprintf("f%d.go", i%50), LineNumber: i + 1, ErrorType: contract.ErrLinting, Message: "m " + strings.Repeat("x", i%7), Severity: sev})
	}
	in[len(in)-1].Message = strings.Repeat("y", report.MaxSARIFMessage*2)
	in[len(in)-1].Severity = "error"
	out, warns := write(t, report.SARIF, in)
	var log struct {
		Runs []struct {
			Results []struct {
				Level   string
				Message struct{ Text string }
			}
			Invocations []struct {
				ToolExecutionNotifications []struct{ Message struct{ Text string } }
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results
	if len(res) != report.MaxSARIFResults {
		t.Fatalf("%d results, want %d", len(res), report.MaxSARIFResults)
	}
	errs := 0
	for _, r := range res {
		if r.Level == "error" {
			errs++
		}
		if len(r.Message.Text) > report.MaxSARIFMessage+16 {
			t.Errorf("a message of %d bytes was not cut", len(r.Message.Text))
		}
	}
	if want := (report.MaxSARIFResults+700)/10 + 1; errs != want {
		t.Errorf("%d errors kept, want all %d", errs, want)
	}
	if len(warns) != 2 || len(log.Runs[0].Invocations[0].ToolExecutionNotifications) != 2 {
		t.Errorf("warnings %q, notifications %v", warns, log.Runs[0].Invocations[0].ToolExecutionNotifications)
	}
}

func TestEmpty(t *testing.T) {
	for _, f := range report.Formats() {
		out, _ := write(t, f, nil)
		switch f {
		case report.GitHub, report.Text, report.RDJSONL:
			if len(out) != 0 {
				t.Errorf("%s: %q for no reports", f, out)
			}
		default:
			if !json.Valid(out) {
				t.Errorf("%s: invalid JSON for no reports: %s", f, out)
			}
		}
	}
}

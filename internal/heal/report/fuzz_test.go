package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/report"
)

// FuzzWrite feeds arbitrary paths, messages and tool names (all of which
// come from a build log) to every writer: none may fail or panic, the JSON
// formats must stay valid JSON, and the line formats must keep one line
// per report.
func FuzzWrite(f *testing.F) {
	f.Add("src/a.go", "undefined: x", "go", "", "", 3, 1)
	f.Add("a b/#?.py", "line\nbreak 100%, ::error::x", "ruff", "F401", "warning", 1, 0)
	f.Add("/abs/\x00.c", "\xff\xfe", "", "", "info", 0, -1)
	f.Fuzz(func(t *testing.T, path, msg, tool, rule, sev string, line, col int) {
		r := []contract.BugReport{{FilePath: path, LineNumber: line, Column: col, ErrorType: contract.ErrTypeError, Message: msg, Tool: tool, Rule: rule, Severity: sev}}
		for _, fm := range report.Formats() {
			var buf bytes.Buffer
			if err := report.Write(&buf, fm, r, report.Options{}); err != nil {
				t.Fatalf("%s: %v", fm, err)
			}
			out := buf.String()
			switch fm {
			case report.GitHub, report.Text, report.RDJSONL:
				if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
					t.Fatalf("%s: not one line: %q", fm, out)
				}
				if fm == report.RDJSONL && !json.Valid([]byte(out)) {
					t.Fatalf("rdjsonl: invalid JSON: %q", out)
				}
			default:
				if !json.Valid([]byte(out)) {
					t.Fatalf("%s: invalid JSON: %q", fm, out)
				}
			}
		}
	})
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseFormats runs `salve parse --format F` for every format on one
// CI log, and checks the bad-input paths exit 2 with a clear message.
func TestParseFormats(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		check    func(t *testing.T, out, errOut string)
	}{
		{[]string{"--format", "sarif"}, exitOK, func(t *testing.T, out, _ string) {
			var log struct {
				Version string
				Runs    []struct{ Results []json.RawMessage }
			}
			if err := json.Unmarshal([]byte(out), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) != 1 {
				t.Errorf("sarif: %v\n%s", err, out)
			}
		}},
		{[]string{"--format", "github"}, exitOK, func(t *testing.T, out, _ string) {
			if out != "::error file=cmd/api/main.go,line=12,col=5,title=salve%3A TYPE_ERROR (go)::undefined: handler\n" {
				t.Errorf("github: %q", out)
			}
		}},
		{[]string{"--format", "gitlab"}, exitOK, func(t *testing.T, out, _ string) {
			if !strings.Contains(out, `"path": "cmd/api/main.go"`) || !strings.Contains(out, `"fingerprint"`) {
				t.Errorf("gitlab: %s", out)
			}
		}},
		{[]string{"--format", "rdjsonl"}, exitOK, func(t *testing.T, out, _ string) {
			if strings.Count(out, "\n") != 1 || !json.Valid([]byte(out)) {
				t.Errorf("rdjsonl: %q", out)
			}
		}},
		{[]string{"--format", "text"}, exitOK, func(t *testing.T, out, _ string) {
			if out != "cmd/api/main.go:12:5: TYPE_ERROR undefined: handler [go]\n" {
				t.Errorf("text: %q", out)
			}
		}},
		{[]string{"--text"}, exitOK, func(t *testing.T, out, _ string) {
			if !strings.HasPrefix(out, "cmd/api/main.go:12:5:") {
				t.Errorf("--text: %q", out)
			}
		}},
		{[]string{"--format", "xml"}, exitBadInput, func(t *testing.T, out, errOut string) {
			if out != "" || !strings.Contains(errOut, `unknown report format "xml"`) || !strings.Contains(errOut, "sarif") {
				t.Errorf("stdout %q, stderr %q", out, errOut)
			}
		}},
		{[]string{"--text", "--format", "sarif"}, exitBadInput, func(t *testing.T, out, errOut string) {
			if out != "" || !strings.Contains(errOut, "contradict") {
				t.Errorf("stdout %q, stderr %q", out, errOut)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := append([]string{"--root", "/workspace/app"}, tt.args...)
			code, out, errOut := runParse(t, parseSampleLog, append(args, "-")...)
			if code != tt.wantCode {
				t.Fatalf("code %d, want %d; stderr %q", code, tt.wantCode, errOut)
			}
			tt.check(t, out, errOut)
		})
	}
}

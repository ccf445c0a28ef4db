package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStageName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"build", "build"},
		{"fix:rules", "fix: rules"},
		{"fix:llm", "fix: llm"},
		{"", ""},
	} {
		if got := stageName(tt.in); got != tt.want {
			t.Errorf("stageName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStageDetail(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"none", ``, ""},
		{"empty object", `{}`, ""},
		{"first build", `{"iteration":0}`, "before fixing"},
		{"iteration", `{"iteration":1}`, "iteration 1"},
		{"exec exit code", `{"exit_code":2}`, "exit code 2"},
		{"both and more", `{"tier":"rules","iteration":3,"exit_code":0}`, "iteration 3, exit code 0, tier: rules"},
		{"fraction kept as a key", `{"iteration":1.5}`, "iteration: 1.5"},
		{"nested", `{"files":["a.go","b.go"]}`, `files: ["a.go","b.go"]`},
		{"not an object", `[1,2]`, "[1,2]"},
		{"null", `null`, "null"},
		{"not JSON", `oops`, "oops"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := stageDetail(json.RawMessage(tt.in)); got != tt.want {
				t.Errorf("stageDetail(%s) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	long := `{"note":"` + strings.Repeat("é", 300) + `"}`
	if got := stageDetail(json.RawMessage(long)); len(got) > maxDetail+len("…") || !utf8.ValidString(got) {
		t.Errorf("a long detail is %d bytes (valid UTF-8: %v)", len(got), utf8.ValidString(got))
	}
}

// FuzzStageDetail checks that any stored detail renders as bounded, valid
// text without a panic.
func FuzzStageDetail(f *testing.F) {
	for _, s := range []string{`{"iteration":0}`, `{"exit_code":1}`, `[]`, `{"a":{"b":[1,"x"]}}`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := stageDetail(b)
		if len(got) > maxDetail+len("…") {
			t.Fatalf("detail of %d bytes", len(got))
		}
	})
}

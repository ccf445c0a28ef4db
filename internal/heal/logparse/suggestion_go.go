package logparse

import (
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// Diagnostic is one located compiler message, every one of them: unlike
// bug reports, several diagnostics of one line are all kept.
type Diagnostic struct {
	// File is repo-relative with forward slashes.
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

var reGoDiag = lazyre.New(`^(?:vet: )?([^\s:][^:]*\.go):(\d+)(?::(\d+))?: (.+)$`)

// ParseGoDiagnostics reads the type-checking errors of a go build, go vet
// or go test log (file:line:col: message), relative to root: the folder
// the go command ran in.
func ParseGoDiagnostics(log, root string) []Diagnostic {
	var out []Diagnostic
	seen := map[Diagnostic]bool{}
	for _, line := range strings.Split(log, "\n") {
		m := reGoDiag.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil || len(out) >= maxSuggestions {
			continue
		}
		f := relFile(root, m[1])
		d := Diagnostic{File: f, Line: atoi(m[2]), Column: atoi(m[3]), Message: strings.TrimSpace(m[4])}
		if f == "" || d.Line < 1 || seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

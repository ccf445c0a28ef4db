package logparse

import (
	"encoding/json"
	"sort"
	"strings"
)

// vetDiag is one diagnostic of `go vet -json` (the JSON tree of
// x/tools' analysisflags: package, then analyzer, then diagnostics).
type vetDiag struct {
	Posn           string `json:"posn"`
	Message        string `json:"message"`
	SuggestedFixes []struct {
		Message string `json:"message"`
		Edits   []struct {
			Filename string `json:"filename"`
			Start    int    `json:"start"`
			End      int    `json:"end"`
			New      string `json:"new"`
		} `json:"edits"`
	} `json:"suggested_fixes"`
}

// maxVetJSON bounds the bytes of one JSON tree ParseGoVetJSON decodes.
const maxVetJSON = 8 << 20

// ParseGoVetJSON reads the output of `go vet -json` run in root: every
// diagnostic's suggested fixes (text edits by byte offsets), one
// Suggestion per fix, with the analyzer as Code and FixIt applicability.
// The diagnostics without a fix are returned as Diagnostics. Paths
// outside root are dropped; text around the JSON trees (the "# pkg"
// lines, type errors) is skipped.
func ParseGoVetJSON(log, root string) ([]Suggestion, []Diagnostic) {
	var sugs []Suggestion
	var diags []Diagnostic
	for _, tree := range jsonTrees(log) {
		var pkgs map[string]map[string]json.RawMessage
		if json.Unmarshal([]byte(tree), &pkgs) != nil {
			continue
		}
		for _, pkg := range sortedKeys(pkgs) {
			for _, analyzer := range sortedKeys(pkgs[pkg]) {
				var ds []vetDiag
				if json.Unmarshal(pkgs[pkg][analyzer], &ds) != nil {
					continue // {"error": ...}: the analyzer failed
				}
				for _, d := range ds {
					if len(sugs) >= maxSuggestions || len(diags) >= maxSuggestions {
						return sugs, diags
					}
					s, d2, ok := vetSuggestions(d, analyzer, root)
					if !ok {
						continue
					}
					sugs = append(sugs, s...)
					diags = append(diags, d2)
				}
			}
		}
	}
	return sugs, dedupeDiags(diags)
}

func vetSuggestions(d vetDiag, analyzer, root string) ([]Suggestion, Diagnostic, bool) {
	file, line, col, ok := splitPosn(d.Posn)
	if !ok {
		return nil, Diagnostic{}, false
	}
	rel := relFile(root, file)
	if rel == "" {
		return nil, Diagnostic{}, false
	}
	diag := Diagnostic{File: rel, Line: line, Column: col, Message: d.Message}
	var out []Suggestion
	for _, fx := range d.SuggestedFixes {
		s := Suggestion{File: rel, Line: line, Column: col, Message: d.Message, Code: analyzer, Tool: "go vet",
			Applicability: FixIt, Label: fx.Message}
		good := len(fx.Edits) > 0
		for _, e := range fx.Edits {
			ef := relFile(root, e.Filename)
			if ef == "" || e.Start < 0 || e.End < e.Start {
				good = false
				break
			}
			// The edit must start on the diagnostic's line: the tier checks it
			// against the file, and applies fixes for reported lines only.
			s.Edits = append(s.Edits, Edit{File: ef, Line: line, Start: e.Start, End: e.End, New: e.New})
		}
		if good {
			out = append(out, s)
		}
	}
	return out, diag, true
}

// splitPosn reads "file:line:col" (the column may be missing).
func splitPosn(p string) (file string, line, col int, ok bool) {
	parts := strings.Split(p, ":")
	if len(parts) < 2 {
		return "", 0, 0, false
	}
	n := len(parts)
	if n >= 3 && atoi(parts[n-1]) > 0 && atoi(parts[n-2]) > 0 {
		return strings.Join(parts[:n-2], ":"), atoi(parts[n-2]), atoi(parts[n-1]), true
	}
	if l := atoi(parts[n-1]); l > 0 {
		return strings.Join(parts[:n-1], ":"), l, 0, true
	}
	return "", 0, 0, false
}

// jsonTrees cuts the top-level JSON objects out of a log: each starts with
// a "{" line and ends with the "}" line at the same indentation.
func jsonTrees(log string) []string {
	var out []string
	rest := log
	for len(out) < 1000 {
		i := strings.Index(rest, "{\n")
		if i < 0 {
			return out
		}
		if i > 0 && rest[i-1] != '\n' {
			rest = rest[i+2:]
			continue
		}
		end := strings.Index(rest[i:], "\n}")
		if end < 0 {
			return out
		}
		tree := rest[i : i+end+2]
		if len(tree) <= maxVetJSON {
			out = append(out, tree)
		}
		rest = rest[i+end+2:]
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func dedupeDiags(ds []Diagnostic) []Diagnostic {
	seen := map[Diagnostic]bool{}
	out := ds[:0]
	for _, d := range ds {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

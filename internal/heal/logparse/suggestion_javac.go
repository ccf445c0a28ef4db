package logparse

import (
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// MissingSymbol is a name a compiler could not resolve, with its kind as
// the compiler says it (javac: class, variable, method).
type MissingSymbol struct {
	// File is repo-relative with forward slashes.
	File string `json:"file"`
	Line int    `json:"line"`
	// Column is 1-based, 0 when unknown.
	Column int    `json:"column,omitempty"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	// Location is javac's "location:" (class Main).
	Location string `json:"location,omitempty"`
}

var (
	reJavacHead   = lazyre.New(`^(.+?\.java):(\d+): error: cannot find symbol`)
	reMavenHead   = lazyre.New(`^(.+?\.java):\[(\d+),(\d+)\] cannot find symbol`)
	reJavacSymbol = lazyre.New(`^\s*symbol:\s+(class|variable|method|interface|enum|record|package|static)\s+([\w$.]+)`)
	reJavacLoc    = lazyre.New(`^\s*location:\s+(.+)$`)
)

// ParseJavacSymbols reads javac's (and Maven's) "cannot find symbol"
// errors: the file, the line, the column of the caret or of Maven's
// [line,col], and the "symbol:" that names what is missing. Paths are made
// relative to root.
func ParseJavacSymbols(log, root string) []MissingSymbol {
	var out []MissingSymbol
	var cur *MissingSymbol
	var src string
	flush := func() {
		if cur != nil && cur.Name != "" && len(out) < maxSuggestions {
			out = append(out, *cur)
		}
		cur, src = nil, ""
	}
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []string{"[ERROR] ", "[WARNING] "} {
			line = strings.TrimPrefix(line, p)
		}
		if m := reJavacHead.FindStringSubmatch(line); m != nil {
			flush()
			if f := relFile(root, m[1]); f != "" {
				cur = &MissingSymbol{File: f, Line: atoi(m[2])}
			}
			continue
		}
		if m := reMavenHead.FindStringSubmatch(line); m != nil {
			flush()
			if f := relFile(root, m[1]); f != "" {
				cur = &MissingSymbol{File: f, Line: atoi(m[2]), Column: atoi(m[3])}
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch t := strings.TrimSpace(line); {
		case cur.Column == 0 && t == "^" && src != "":
			cur.Column = strings.IndexByte(line, '^') + 1
		case reJavacSymbol.MatchString(line):
			m := reJavacSymbol.FindStringSubmatch(line)
			cur.Kind, cur.Name = m[1], m[2]
			if i := strings.IndexByte(cur.Name, '('); i >= 0 {
				cur.Name = cur.Name[:i]
			}
		case reJavacLoc.MatchString(line):
			cur.Location = strings.TrimSpace(reJavacLoc.FindStringSubmatch(line)[1])
			flush()
		case src == "" && cur.Kind == "":
			src = line
		}
	}
	flush()
	return out
}

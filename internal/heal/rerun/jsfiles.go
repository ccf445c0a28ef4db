package rerun

import (
	"os"
	"path/filepath"
	"strings"
)

// inJSFiles is InTestFiles for jest and vitest: the plan's command must
// end with its name filter (-t '^…$'), so no file is named yet.
func (p Plan) inJSFiles(log, ws string) Plan {
	i := strings.LastIndex(p.Command, " -t '^")
	if i < 0 || strings.Count(p.Command[i:], "'") != 2 || !strings.HasSuffix(p.Command, "$'") {
		return p
	}
	at := jestLocations(log)
	if p.Runner == "vitest" {
		at = vitestLocations(log)
	}
	var files []string
	for _, t := range p.Tests {
		rel, ok := at[t]
		if !ok || !jsFileArg(rel, p.Runner == "jest") {
			return p
		}
		if st, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(rel))); err != nil || !st.Mode().IsRegular() {
			return p // not a path of the workspace's (another root)
		}
		files = append(files, quote(rel))
	}
	return p.withFiles(files)
}

// jsFullName is a test's full name as the plans spell it: the describe
// blocks and the test joined by spaces (jsNames).
func jsFullName(s, sep string) string {
	return strings.Join(strings.Split(strings.TrimSpace(s), sep), " ")
}

// jestLocations reads jest's default report: a "FAIL path" (or "PASS
// path") line starts each test file's part, and each failing test's
// block there starts with "● describe › test". In colour, the word is a
// badge with a blank on each side (" FAIL  path" once the colours are
// gone); the lines of a test's own output are indented further and never
// start a part. It returns each failing test's full name and its file's
// path as jest printed it; a name found in two files is left out.
func jestLocations(log string) map[string]string {
	loc := locations{}
	file := ""
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "  ") {
			line = line[1:] // the badge's blank
		}
		if rest, ok := cutWord(line, "FAIL"); ok {
			file = firstField(rest)
			continue
		}
		if rest, ok := cutWord(line, "PASS"); ok {
			file = firstField(rest)
			continue
		}
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "● ")
		if !ok || file == "" || name == "Test suite failed to run" {
			continue
		}
		loc.add(jsFullName(name, " › "), file)
	}
	return loc.unique()
}

// vitestLocations reads vitest's default report: each failing test's
// line "FAIL  path > describe > test" (after a "|project|" name in a
// workspace of several projects).
func vitestLocations(log string) map[string]string {
	loc := locations{}
	for _, line := range strings.Split(log, "\n") {
		rest, ok := cutWord(strings.TrimSpace(strings.TrimRight(line, "\r")), "FAIL")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, "|") {
			if j := strings.Index(rest[1:], "|"); j >= 0 {
				rest = strings.TrimSpace(rest[j+2:])
			}
		}
		file, name, ok := strings.Cut(rest, " > ")
		if !ok || strings.ContainsAny(file, " \t") {
			continue
		}
		loc.add(jsFullName(name, " > "), file)
	}
	return loc.unique()
}

// cutWord cuts word and the blanks after it from the start of line, when
// line starts with it as a word of its own.
func cutWord(line, word string) (string, bool) {
	rest, ok := strings.CutPrefix(line, word)
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimLeft(rest, " \t"), true
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// locations gathers test names and their files; a name seen in two files
// is ambiguous.
type locations map[string][]string

func (l locations) add(name, file string) {
	if name == "" || file == "" {
		return
	}
	for _, f := range l[name] {
		if f == file {
			return
		}
	}
	l[name] = append(l[name], file)
}

// unique returns the names found in exactly one file.
func (l locations) unique() map[string]string {
	out := make(map[string]string, len(l))
	for name, files := range l {
		if len(files) == 1 {
			out[name] = files[0]
		}
	}
	return out
}

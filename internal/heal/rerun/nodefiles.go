package rerun

import (
	"path/filepath"
	"strings"
)

// nodeTestPrefix is how a node plan that names no file starts: node's
// runner then starts every test file it finds again, each in its own
// process, only to skip all but the failing tests.
const nodeTestPrefix = "node --test "

// nodeNameFlag is node's test name filter, as the node runner's plans
// spell it.
const nodeNameFlag = "--test-name-pattern="

// InTestFiles narrows a plan of node's test runner, jest or vitest that
// names no test file (a failure located in the code under test does not
// say which test file failed) to the files where log, the failing build's
// output, locates each of the plan's tests: node then starts those files
// only, and jest and vitest load only those. node's TAP gives each
// failing test's location (`location: '/abs/file.test.js:6:1'`); jest's
// report puts each failing test's block ("● describe › test") under its
// file's "FAIL path" line; vitest's names it on the line itself ("FAIL
// path > describe > test"). ws is the absolute workspace: the files must
// lie inside it (jest's and vitest's paths are relative to it, and each
// must be a file there). A file that is not a test file by name, a test
// the log does not locate or locates in two files, or any other plan
// leaves the plan unchanged.
func (p Plan) InTestFiles(log, ws string) Plan {
	if !p.Narrowed || !filepath.IsAbs(ws) {
		return p
	}
	switch p.Runner {
	case "node":
		return p.inNodeFiles(log, ws)
	case "jest", "vitest":
		return p.inJSFiles(log, ws)
	}
	return p
}

// inNodeFiles is InTestFiles for node's test runner.
func (p Plan) inNodeFiles(log, ws string) Plan {
	if !strings.HasPrefix(p.Command, nodeTestPrefix) {
		return p
	}
	// The command must end with its name filter: no file is named yet.
	i := strings.LastIndex(p.Command, " "+nodeNameFlag)
	if i < 0 || strings.Count(p.Command[i:], "'") != 2 || !strings.HasSuffix(p.Command, "'") {
		return p
	}
	at := nodeLocations(log)
	var files []string
	for _, t := range p.Tests {
		abs, ok := at[t]
		if !ok || !filepath.IsAbs(abs) {
			return p
		}
		rel, err := filepath.Rel(ws, abs)
		if err != nil {
			return p
		}
		rel = filepath.ToSlash(rel)
		if !jsFileArg(rel, false) {
			return p
		}
		files = append(files, quote(rel))
	}
	return p.withFiles(files)
}

// withFiles adds the quoted files to the end of the plan's command, and
// to its proof run: after the command where the proof is the command and
// the runner's reporter flags (jest, vitest), else at its end, after the
// name filter (node, whose reporter flag stands before the filter).
func (p Plan) withFiles(files []string) Plan {
	if len(files) == 0 {
		return p
	}
	list := " " + strings.Join(sortedUniq(files), " ")
	if suffix, ok := strings.CutPrefix(p.Proof, p.Command); ok && p.Proof != "" {
		p.Proof = p.Command + list + suffix
	} else if strings.HasSuffix(p.Proof, "'") {
		p.Proof += list
	} else if p.Proof != "" {
		return p
	}
	p.Command += list
	return p
}

// nodeLocations reads, from the TAP of node's runner, the file of each
// failing test: the path of the `location:` line in the YAML block after
// its `not ok N - name` line. A name failing in two files is dropped.
func nodeLocations(log string) map[string]string {
	loc := locations{}
	lines := strings.Split(log, "\n")
	for i := 0; i < len(lines); i++ {
		name, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "not ok ")
		if !ok {
			continue
		}
		_, name, ok = strings.Cut(name, " - ")
		if !ok || name == "" {
			continue
		}
		for j := i + 1; j < len(lines) && j < i+64; j++ {
			l := strings.TrimSpace(lines[j])
			if l == "..." || strings.HasPrefix(l, "not ok ") || strings.HasPrefix(l, "ok ") {
				break
			}
			at, ok := strings.CutPrefix(l, "location: ")
			if !ok {
				continue
			}
			file := strings.TrimPrefix(strings.Trim(at, `'"`), "file://")
			// /abs/file.test.js:6:1: the last two fields are line and column.
			for range 2 {
				if k := strings.LastIndexByte(file, ':'); k > 0 {
					file = file[:k]
				}
			}
			loc.add(name, file)
			break
		}
	}
	return loc.unique()
}

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

// InTestFiles narrows a node plan that names no test file (a failure
// located in the code under test does not say which test file failed) to
// the files where log, the TAP of node's runner, locates each of the
// plan's tests (`location: '/abs/file.test.js:6:1'` in the failing test's
// block): node then starts those files only. ws is the absolute workspace
// the log's paths are under; a location outside it, a file that is not a
// test file by name, a test the log does not locate, or any other plan
// leaves the plan unchanged.
func (p Plan) InTestFiles(log, ws string) Plan {
	if p.Runner != "node" || !p.Narrowed || !strings.HasPrefix(p.Command, nodeTestPrefix) || !filepath.IsAbs(ws) {
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
		if !okPath(rel) || !jsTestFile.MatchString(rel) {
			return p
		}
		files = append(files, quote(rel))
	}
	if len(files) == 0 {
		return p
	}
	list := " " + strings.Join(sortedUniq(files), " ")
	p.Command += list
	if strings.HasSuffix(p.Proof, "'") {
		p.Proof += list
	}
	return p
}

// nodeLocations reads, from the TAP of node's runner, the file of each
// failing test: the path of the `location:` line in the YAML block after
// its `not ok N - name` line. A name failing in two files is dropped.
func nodeLocations(log string) map[string]string {
	out := map[string]string{}
	dup := map[string]bool{}
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
			loc, ok := strings.CutPrefix(l, "location: ")
			if !ok {
				continue
			}
			file := strings.TrimPrefix(strings.Trim(loc, `'"`), "file://")
			// /abs/file.test.js:6:1: the last two fields are line and column.
			for range 2 {
				if k := strings.LastIndexByte(file, ':'); k > 0 {
					file = file[:k]
				}
			}
			if prev, seen := out[name]; seen && prev != file {
				dup[name] = true
			}
			out[name] = file
			break
		}
	}
	for name := range dup {
		delete(out, name)
	}
	return out
}

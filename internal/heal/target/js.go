package target

import (
	"path"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lazyre"
)

// The JavaScript and TypeScript resolution is lexical: the test's imports
// of relative modules, the names it calls, and their declarations in those
// modules.
var (
	jsImportRe  = lazyre.New(`(?m)^\s*import\s+(?:type\s+)?(?:([\w$]+)\s*,?\s*)?(?:\{([^}]{0,1000})\})?\s*(?:\*\s+as\s+([\w$]+))?\s*from\s*['"]([^'"]{1,512})['"]`)
	jsRequireRe = lazyre.New(`(?:const|let|var)\s+(?:\{([^}]{0,1000})\}|([\w$]+))\s*=\s*require\(\s*['"]([^'"]{1,512})['"]\s*\)`)
	jsCallRe    = lazyre.New(`([A-Za-z_$][\w$]*)(?:\s*\.\s*([A-Za-z_$][\w$]*))?\s*\(`)
	jsTestRe    = lazyre.New(`\b(?:it|test)(?:\.\w+)*\s*\(`)
	// jsNewVarRe is `const c = new Calc(…)`, typed or not.
	jsNewVarRe = lazyre.New(`\b(?:const|let|var)\s+([\w$]+)\s*(?::\s*[\w$.<>, ]{1,200})?=\s*new\s+([\w$]+)`)
)

// jsExts are the extensions tried for an import without one.
var jsExts = []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", "/index.ts", "/index.js", "/index.tsx", "/index.jsx"}

// jsDeclForms are the declarations of a name, %s standing for it.
var jsDeclForms = []string{
	`(?m)^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*%s\s*[(<]`,
	`(?m)^\s*(?:export\s+)?(?:const|let|var)\s+%s\s*(?::[^=]{1,200})?=`,
	`(?m)^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+%s\b`,
	`(?m)^\s*(?:module\.)?exports\.%s\s*=`,
	`(?m)^\s*(?:static\s+|async\s+|public\s+|private\s+|protected\s+)*%s\s*\([^)]{0,500}\)\s*(?::[^{]{1,200})?\{`,
}

// jsBinding is a name the test imports: from a module, the export it
// names ("default" or "*" for a namespace).
type jsBinding struct{ spec, export string }

// jsCalls resolves, lexically, the functions a failing JavaScript or
// TypeScript test calls that its file imports from a relative module.
func (r *resolver) jsCalls() []cand {
	testRel, ok := r.w.file(r.bug.FilePath)
	if !ok {
		return nil
	}
	src, ok := r.read(testRel)
	if !ok {
		return nil
	}
	code := jsLex.Code(string(src))
	binds := jsBindings(string(src))
	vars := map[string]string{}
	for _, m := range jsNewVarRe.FindAllStringSubmatch(code, 512) {
		vars[m[1]] = m[2]
	}
	from, to := jsTestBlock(code, r.bug.LineNumber)
	lines := lineStarts(code)
	why := "called by the test"
	var out []cand
	for _, m := range jsCallRe.FindAllStringSubmatchIndex(code[from:to], 512) {
		name, member := code[from+m[2]:from+m[3]], ""
		if m[4] >= 0 {
			member = code[from+m[4] : from+m[5]]
		}
		b, ok := binds[name]
		if cls, isVar := vars[name]; !ok && isVar && member != "" {
			// c.add() after const c = new Calc(): a method of Calc
			b, ok = binds[cls]
		}
		if !ok {
			continue
		}
		export := b.export
		switch {
		case export == "*" && member != "":
			export, member = member, ""
		case export == "*":
			continue
		}
		file, ok := r.jsModule(path.Dir(testRel), b.spec)
		if !ok || isTestFile(file) {
			continue
		}
		file = r.jsExporter(file, export, 0)
		if lastWord(strings.TrimSpace(code[from:from+m[0]])) == "new" && member == "" {
			// new Calc(…): its constructor, when it declares one; the whole
			// class is no code under test.
			member = "constructor"
		}
		if c, ok := r.jsMethod(file, export, member, why); ok {
			c.line = lineOf(lines, from+m[0])
			out = append(out, c)
			continue
		}
		if member == "constructor" {
			continue
		}
		if c, ok := r.jsDecl(file, export, why); ok {
			c.line = lineOf(lines, from+m[0])
			out = append(out, c)
		}
	}
	return out
}

// jsBindings reads the test file's imports and requires.
func jsBindings(src string) map[string]jsBinding {
	out := map[string]jsBinding{}
	named := func(list, spec string) {
		for _, part := range strings.Split(list, ",") {
			f := strings.Fields(strings.ReplaceAll(strings.TrimSpace(part), ":", " as "))
			switch {
			case len(f) == 1:
				out[f[0]] = jsBinding{spec, f[0]}
			case len(f) == 3 && f[1] == "as":
				out[f[2]] = jsBinding{spec, f[0]}
			}
		}
	}
	for _, m := range jsImportRe.FindAllStringSubmatch(src, 256) {
		if m[1] != "" {
			out[m[1]] = jsBinding{m[4], "default"}
		}
		named(m[2], m[4])
		if m[3] != "" {
			out[m[3]] = jsBinding{m[4], "*"}
		}
	}
	for _, m := range jsRequireRe.FindAllStringSubmatch(src, 256) {
		named(m[1], m[3])
		if m[2] != "" {
			out[m[2]] = jsBinding{m[3], "*"}
		}
	}
	return out
}

// jsTestBlock returns the byte range of the it/test block around line,
// or of the whole file.
func jsTestBlock(code string, line int) (int, int) {
	lines := lineStarts(code)
	from, to := 0, len(code)
	for _, b := range braceBlocks(code) {
		if lineOf(lines, b.open) > line+1 || lineOf(lines, b.close) < line || !jsTestRe.MatchString(b.header) {
			continue
		}
		if b.close-b.headerStart < to-from {
			from, to = b.headerStart, b.close
		}
	}
	return from, to
}

// jsModule resolves a relative import specifier to a workspace file.
func (r *resolver) jsModule(dir, spec string) (string, bool) {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
		return "", false
	}
	base := path.Join(dir, spec)
	for _, ext := range jsExts {
		if f, ok := r.w.file(base + ext); ok {
			return f, true
		}
	}
	// TypeScript sources imported with the specifier of their output.
	for js, tss := range map[string][]string{".js": {".ts", ".tsx"}, ".mjs": {".mts"}, ".cjs": {".cts"}} {
		if trimmed, ok := strings.CutSuffix(base, js); ok {
			for _, ext := range tss {
				if f, ok := r.w.file(trimmed + ext); ok {
					return f, true
				}
			}
		}
	}
	return "", false
}

// jsDecl finds the declaration of an export in a module: the function
// around it, or the statement when it has no braces (an arrow expression).
func (r *resolver) jsDecl(file, export, why string) (cand, bool) {
	src, ok := r.read(file)
	if !ok {
		return cand{}, false
	}
	code := jsLex.Code(string(src))
	lines := lineStarts(code)
	var at int = -1
	if export == "default" {
		if m := regexp.MustCompile(`(?m)^\s*export\s+default\s+(?:async\s+)?(?:function\s*\*?\s*|class\s+)?([\w$]*)`).FindStringSubmatchIndex(code); m != nil {
			at = m[0]
			if name := code[m[2]:m[3]]; name != "" {
				export = name
			}
		}
	}
	if at < 0 {
		for _, form := range jsDeclForms {
			if loc := regexp.MustCompile(strings.ReplaceAll(form, "%s", regexp.QuoteMeta(export))).FindStringIndex(code); loc != nil {
				at = loc[0]
				break
			}
		}
	}
	if at < 0 {
		return cand{}, false
	}
	line := lineOf(lines, firstNonSpace(code, at, len(code)))
	s, ok := encloseBraces(string(src), jsLex, line, export)
	if !ok || s.start != line {
		s = span{start: line, end: statementEnd(code, lines, line), name: export}
	}
	return cand{Region: undertest.Region{Path: file, Start: s.start, End: s.end, Symbol: export, Why: why + " (lexical)"}, name: export}, true
}

// jsReexportRe is `export { a, b as c } from "./m"` or `export * from
// "./m"`.
var jsReexportRe = lazyre.New(`(?m)^\s*export\s+(?:type\s+)?(?:\{([^}]{0,1000})\}|\*)\s*from\s*['"]([^'"]{1,512})['"]`)

// jsExporter follows a module's re-exports (an index.ts that exports
// from "./cart") to the module that declares export, a few hops deep;
// the module itself when it declares it or re-exports nothing of it.
func (r *resolver) jsExporter(file, export string, depth int) string {
	src, ok := r.read(file)
	if !ok || depth > 3 {
		return file
	}
	for _, m := range jsReexportRe.FindAllStringSubmatch(string(src), 64) {
		names := jsBindings("import {" + m[1] + "} from '" + m[2] + "'")
		b, named := names[export]
		if m[1] != "" && !named {
			continue
		}
		if named {
			export = b.export
		}
		if next, ok := r.jsModule(path.Dir(file), m[2]); ok && next != file {
			if m[1] != "" || r.jsDeclares(next, export) {
				return r.jsExporter(next, export, depth+1)
			}
		}
	}
	return file
}

// jsDeclares reports whether a module declares name.
func (r *resolver) jsDeclares(file, name string) bool {
	_, ok := r.jsDecl(file, name, "")
	return ok
}

// jsMethod finds a method of a class a module declares (the default
// export's class when export is "default"); false when member is empty or
// the class has no such method.
func (r *resolver) jsMethod(file, export, member, why string) (cand, bool) {
	if member == "" {
		return cand{}, false
	}
	src, ok := r.read(file)
	if !ok {
		return cand{}, false
	}
	_, defs := braceDefs(string(src), jsLex)
	for _, d := range defs {
		if d.name == member && !d.nested && (d.owner() == export || export == "default" && d.owner() != "") {
			return cand{Region: undertest.Region{Path: file, Start: d.start, End: d.end, Symbol: d.owner() + "." + member, Why: why + " (lexical)"}, name: member}, true
		}
	}
	return cand{}, false
}

// statementEnd returns the line of the first ';' after the start of line
// at bracket depth zero, within 50 lines, else line itself.
func statementEnd(code string, lines []int, line int) int {
	depth := 0
	for i := lines[line-1]; i < len(code) && lineOf(lines, i) < line+50; i++ {
		switch code[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ';':
			if depth <= 0 {
				return lineOf(lines, i)
			}
		}
	}
	return line
}

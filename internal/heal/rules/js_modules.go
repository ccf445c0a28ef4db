package rules

import (
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
)

// How a module exports a name, as its importer must bind it.
const (
	jsExportNone    = iota
	jsExportDefault // export default, module.exports = name
	jsExportNamed   // export function name, export { name }, exports.name =
)

// jsModule is a module of the project that exports a name.
type jsModule struct {
	file string // repo-relative
	kind int
	cjs  bool // the module is CommonJS (module.exports, exports.x)
}

// jsSkipDirs are the folders the project search skips: dependencies,
// build output, caches.
var jsSkipDirs = map[string]bool{"node_modules": true, "dist": true, "build": true, "out": true, "coverage": true, ".git": true, ".next": true, ".cache": true, "vendor": true, "__tests__": true}

// jsMaxModules bounds the files the project search reads.
const jsMaxModules = 5000

// jsModuleExporting returns the module of the project nearest to file (by
// folders walked between them) that exports name, and how. It refuses
// when two modules are as near, since the choice would be a guess. A
// JavaScript file only looks at JavaScript modules; TypeScript at both.
func jsModuleExporting(ws, file, name string) (jsModule, bool) {
	if !isJSIdent(name) {
		return jsModule{}, false
	}
	ts := isTSFile(file)
	var best []jsModule
	bestD := 1 << 30
	n := 0
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != ws && (jsSkipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(ws, p)
		if err != nil || !jsModuleFile(rel, ts) || filepath.ToSlash(rel) == file {
			return nil
		}
		if n++; n > jsMaxModules {
			return filepath.SkipAll
		}
		rel = filepath.ToSlash(rel)
		dist := folderDistance(path.Dir(file), path.Dir(rel))
		if dist > bestD {
			return nil
		}
		b, err := safefile.Read(p, safefile.MaxSource)
		if err != nil {
			return nil
		}
		kind, cjs := jsExportKind(string(b), name)
		if kind == jsExportNone {
			return nil
		}
		if dist < bestD {
			best, bestD = nil, dist
		}
		best = append(best, jsModule{file: rel, kind: kind, cjs: cjs})
		return nil
	})
	if len(best) != 1 {
		return jsModule{}, false
	}
	return best[0], true
}

// jsModuleFile reports whether a repo-relative file is a module an
// import may name: a source file, not a test, a declaration file or a
// minified bundle.
func jsModuleFile(rel string, ts bool) bool {
	base := strings.ToLower(path.Base(filepath.ToSlash(rel)))
	if strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.HasSuffix(base, ".d.ts") || strings.HasSuffix(base, ".min.js") {
		return false
	}
	switch path.Ext(base) {
	case ".js", ".mjs", ".cjs", ".jsx":
		return true
	case ".ts", ".tsx", ".mts", ".cts":
		return ts
	}
	return false
}

func isTSFile(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".ts", ".tsx", ".mts", ".cts":
		return true
	}
	return false
}

// folderDistance is the number of folders walked from a to b (both
// repo-relative, slash-separated).
func folderDistance(a, b string) int {
	as, bs := splitDir(a), splitDir(b)
	i := 0
	for i < len(as) && i < len(bs) && as[i] == bs[i] {
		i++
	}
	return len(as) - i + len(bs) - i
}

func splitDir(d string) []string {
	if d == "." || d == "" {
		return nil
	}
	return strings.Split(d, "/")
}

var (
	reJSExportList = lazyre.New(`(?m)^\s*export\s*\{([^}]*)\}`)
	reCJSObject    = lazyre.New(`module\.exports\s*=\s*\{([^}]*)\}`)
)

// jsExportKind says how a module's source exports name, and whether the
// module is CommonJS.
func jsExportKind(src, name string) (int, bool) {
	q := regexp.QuoteMeta(name)
	switch {
	case lazyre.New(`(?m)^\s*export\s+default\s+(?:async\s+)?(?:function\*?|class)\s+` + q + `\b|^\s*export\s+default\s+` + q + `\s*;?\s*$`).MatchString(src):
		return jsExportDefault, false
	case lazyre.New(`(?m)^\s*export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|enum|abstract\s+class)\s+` + q + `\b`).MatchString(src):
		return jsExportNamed, false
	}
	for _, m := range reJSExportList.FindAllStringSubmatch(src, -1) {
		for _, item := range strings.Split(m[1], ",") {
			f := strings.Fields(item)
			switch {
			case len(f) == 1 && f[0] == name:
				return jsExportNamed, false
			case len(f) == 3 && f[1] == "as" && f[2] == name:
				return jsExportNamed, false
			case len(f) == 3 && f[1] == "as" && f[2] == "default" && f[0] == name:
				return jsExportDefault, false
			}
		}
	}
	switch {
	case lazyre.New(`(?m)\bmodule\.exports\s*=\s*(?:` + q + `\s*;?\s*$|(?:async\s+)?(?:function\*?|class)\s+` + q + `\b)`).MatchString(src):
		return jsExportDefault, true
	case lazyre.New(`\b(?:module\.)?exports\.` + q + `\s*=[^=]`).MatchString(src):
		return jsExportNamed, true
	}
	for _, m := range reCJSObject.FindAllStringSubmatch(src, -1) {
		for _, item := range strings.Split(m[1], ",") {
			key, _, _ := strings.Cut(strings.TrimSpace(item), ":")
			if strings.TrimSpace(key) == name {
				return jsExportNamed, true
			}
		}
	}
	return jsExportNone, false
}

// isJSIdent reports whether s is a plain JavaScript identifier.
func isJSIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// importOf is the line that binds name from module m in the style st of
// the importing file (repo-relative path file); ok is false when that
// style cannot load the module (a CommonJS file cannot require an ES
// module).
func (s jsStyle) importOf(file, name string, m jsModule) (string, bool) {
	spec := s.moduleSpecifier(file, m.file)
	switch {
	case s.esm || s.ts:
		if m.kind == jsExportDefault {
			return "import " + name + " from " + spec + s.end(), true
		}
		return "import { " + name + " } from " + spec + s.end(), true
	case !m.cjs:
		return "", false
	case m.kind == jsExportDefault:
		return "const " + name + " = require(" + spec + ")" + s.end(), true
	}
	return "const { " + name + " } = require(" + spec + ")" + s.end(), true
}

// moduleSpecifier is the quoted relative specifier of module (repo-relative)
// from file, with the extension the importing file's convention wants: the
// module's own in node's ES modules, the emitted one (.js) in TypeScript
// that writes extensions, none in TypeScript that does not nor in
// CommonJS that does not (unless node could not find the file without).
func (s jsStyle) moduleSpecifier(file, module string) string {
	rel := relPath(path.Dir(file), module)
	x := path.Ext(module)
	base := strings.TrimSuffix(rel, x)
	switch {
	case s.ts && s.ext != "":
		rel = base + jsEmittedExt(x)
	case s.ts:
		rel = base
	case s.esm:
	case s.ext == "" && (x == ".js" || x == ".jsx"):
		rel = base
	}
	return s.quote + rel + s.quote
}

// jsEmittedExt is the extension TypeScript emits for a source extension.
func jsEmittedExt(x string) string {
	switch x {
	case ".mts", ".mjs":
		return ".mjs"
	case ".cts", ".cjs":
		return ".cjs"
	}
	return ".js"
}

// relPath is the relative path from folder dir to file, starting with ./
// or ../.
func relPath(dir, file string) string {
	ds, fs := splitDir(dir), strings.Split(file, "/")
	i := 0
	for i < len(ds) && i < len(fs)-1 && ds[i] == fs[i] {
		i++
	}
	up := len(ds) - i
	rest := strings.Join(fs[i:], "/")
	if up == 0 {
		return "./" + rest
	}
	return strings.Repeat("../", up) + rest
}

package rules

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
)

// reJSUndefined matches an undefined name as node (ReferenceError), tsc
// (TS2304) and eslint (no-undef) report it, and as node's test runner
// does: V8's bare ReferenceError message, its error name on another line.
var reJSUndefined = lazyre.New(`ReferenceError: ([\w$]+) is not defined|Cannot find name '([\w$]+)'\.?$|^'([\w$]+)' is not defined\.?$|^([\w$]+) is not defined$`)

// fixJSImports adds the import of an undefined name: a node built-in
// module of that name (node's own builtinModules list), else the name as
// the project's nearest module exports it (a default or a named export).
// The import follows the file's module system (ES import or CommonJS
// require), quotes, semicolons and extension convention.
func fixJSImports(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	loadIndexes()
	st := jsStyleOf(in.workspace, in.path, in.content)
	var adds []string
	done := map[string]bool{}
	for _, r := range in.reports {
		m := reJSUndefined.FindStringSubmatch(strings.TrimSpace(firstLine(r.Message)))
		if m == nil {
			continue
		}
		name := m[1] + m[2] + m[3] + m[4]
		if done[name] || jsDeclares(in.content, name) {
			continue
		}
		var line string
		switch {
		case nodeBuiltins[name] && isIdent(name):
			if jsDeclaresClose(in.content, name) {
				continue
			}
			line = st.builtin(name)
		default:
			m, ok := jsModuleExporting(in.workspace, in.path, name)
			if !ok {
				continue
			}
			if line, ok = st.importOf(in.path, name, m); !ok {
				continue
			}
		}
		done[name] = true
		adds = append(adds, line)
	}
	if len(adds) == 0 {
		return edit{}, false, nil
	}
	sort.Strings(adds)
	ls := splitContent(in.content)
	at := jsImportAnchor(ls.l)
	block := adds
	if at == 0 && len(ls.l) > 0 && strings.TrimSpace(ls.l[0]) != "" && !reJSImportLine.MatchString(ls.l[0]) {
		block = append(block, "")
	}
	for i := len(block) - 1; i >= 0; i-- {
		ls.insertAfter(at, block[i])
	}
	return edit{content: ls.String(), reason: "add the missing " + strings.Join(adds, " "), confidence: 0.85}, true, nil
}

// jsStyle is how a file writes its imports.
type jsStyle struct {
	esm, ts, semi bool
	quote         string
	ext           string // the extension relative imports carry, "" for none
}

func (s jsStyle) end() string {
	if s.semi {
		return ";"
	}
	return ""
}

func (s jsStyle) builtin(name string) string {
	spec := s.quote + "node:" + name + s.quote
	switch {
	case s.ts:
		return "import * as " + name + " from " + spec + s.end()
	case s.esm:
		return "import " + name + " from " + spec + s.end()
	}
	return "const " + name + " = require(" + spec + ")" + s.end()
}

var (
	reJSImportLine = lazyre.New(`^\s*(import\s.+|(const|let|var)\s+(\w+|\{[^}]*\})\s*=\s*require\(.*\);?)\s*$`)
	reFromLine     = lazyre.New(`^\s*\}\s*from\s+['"]`)
	reESM          = lazyre.New(`(?m)^\s*(import\s[^(]|export\s)`)
	reRelImport    = lazyre.New(`(?:from\s+|require\()['"](\.\.?/[^'"]+)['"]`)
)

// jsStyleOf reads a file's module system and import style.
func jsStyleOf(ws, file, content string) jsStyle {
	e := strings.ToLower(path.Ext(file))
	st := jsStyle{ts: e == ".ts" || e == ".tsx" || e == ".mts" || e == ".cts", quote: `"`, semi: true}
	switch {
	case e == ".mjs" || e == ".mts":
		st.esm = true
	case e == ".cjs" || e == ".cts":
	case reESM.MatchString(content):
		st.esm = true
	case strings.Contains(content, "require("):
	default:
		st.esm = packageType(ws, file) == "module"
	}
	var imports []string
	for _, l := range strings.Split(content, "\n") {
		if reJSImportLine.MatchString(l) || reFromLine.MatchString(l) {
			imports = append(imports, strings.TrimSpace(l))
		}
	}
	if strings.Count(content, "'") > strings.Count(content, `"`) {
		st.quote = "'"
	}
	if len(imports) > 0 {
		single, semi := 0, 0
		for _, l := range imports {
			if strings.Contains(l, "'") {
				single++
			}
			if strings.HasSuffix(l, ";") {
				semi++
			}
		}
		st.quote = `"`
		if single*2 > len(imports) {
			st.quote = "'"
		}
		st.semi = semi*2 >= len(imports)
	}
	for _, m := range reRelImport.FindAllStringSubmatch(content, -1) {
		if x := path.Ext(m[1]); x != "" {
			st.ext = x
			break
		}
	}
	return st
}

// packageType is the "type" of the nearest package.json above file.
func packageType(ws, file string) string {
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		b, err := safefile.ReadOpts(filepath.Join(ws, filepath.FromSlash(dir), "package.json"), safefile.MaxSource, safefile.Options{NoFollow: true})
		if err == nil {
			var p struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(b, &p)
			return p.Type
		}
		if dir == "." || dir == "/" {
			return ""
		}
	}
}

// jsDeclares reports whether the file declares or imports name itself.
func jsDeclares(content, name string) bool {
	q := regexp.QuoteMeta(name)
	re := lazyre.New(`(?m)\b(?:const|let|var|function\*?|class)\s+` + q + `\b|import\s+` + q + `\b|\*\s+as\s+` + q + `\b|[{,]\s*` + q + `\s*[},]`)
	return re.MatchString(content)
}

// jsImportAnchor returns the line after which a new import goes: after
// the last import or require line of the file's header (a shebang, "use
// strict", comments and blank lines may come first), else 0, or after a
// shebang and a "use strict".
func jsImportAnchor(src []string) int {
	at := 0
	inComment := false
	braces := 0 // open braces of a multi-line import
	for i, l := range src {
		t := strings.TrimSpace(l)
		switch {
		case inComment:
			if strings.Contains(t, "*/") {
				inComment = false
			}
		case strings.HasPrefix(t, "/*"):
			inComment = !strings.Contains(t, "*/")
		case t == "" || strings.HasPrefix(t, "//"):
		case i == 0 && strings.HasPrefix(t, "#!"), t == `"use strict";` || t == `'use strict';` || t == `"use strict"` || t == `'use strict'`:
			at = i + 1
		case braces > 0:
			braces += strings.Count(t, "{") - strings.Count(t, "}")
			at = i + 1
		case reJSImportLine.MatchString(l), strings.HasPrefix(t, "import {") || strings.HasPrefix(t, "import{"):
			braces = max(0, strings.Count(t, "{")-strings.Count(t, "}"))
			at = i + 1
		default:
			return at
		}
	}
	return at
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

var reJSDeclName = lazyre.New(`\b(?:const|let|var|function\*?|class)\s+([\w$]+)`)

// jsDeclaresClose reports whether the file declares a name close to name
// (paths for path): then an undefined name that is also a built-in
// module's is more likely a misspelling than a missing import, and no
// import is added. A name a module of the project exports is imported
// all the same: that export is the stronger sign.
func jsDeclaresClose(content, name string) bool {
	for _, m := range reJSDeclName.FindAllStringSubmatch(content, -1) {
		if m[1] != name && closeNames(name, m[1]) {
			return true
		}
	}
	return false
}

package rules

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
)

var (
	reJavaCantFind  = lazyre.New(`cannot find symbol|cannot be resolved to a type|unresolved reference`)
	reJavaTypeUse   = lazyre.New(`\b[A-Z][A-Za-z0-9_]*\b`)
	reJavaPkgDecl   = lazyre.New(`(?m)^\s*package\s+([\w.]+)\s*;`)
	reJavaImportDec = lazyre.New(`(?m)^\s*import\s+(static\s+)?([\w.]+)(\.\*)?\s*;`)
	reJavaDeclType  = lazyre.New(`\b(?:class|interface|enum|record|@interface)\s+([A-Z]\w*)|<\s*([A-Z]\w*)\s*(?:extends|[,>])`)
	// javaLexer blanks Java's comments and literals, so that declarations
	// and uses are found in code only.
	javaLexer = lang.ByName("java")
)

// javaPreferred orders the JDK packages a simple name most often means,
// to break ties (List is java.util's, not java.awt's).
var javaPreferred = []string{"java.util", "java.util.function", "java.util.stream", "java.io", "java.nio.file", "java.time", "java.util.concurrent",
	"java.util.concurrent.atomic", "java.math", "java.net", "java.nio", "java.nio.charset", "java.text", "java.util.regex", "java.time.format", "java.lang.reflect"}

// fixJavaImports adds the imports of the types a "cannot find symbol"
// line uses without importing: the capitalised names of the reported line
// that the file does not declare or import, that are not in its own
// package or java.lang, resolved against the project's classes (by
// package and file name) first, then the JDK's public classes (an index
// generated from the real JDK).
func fixJavaImports(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	loadIndexes()
	ls := splitContent(in.content)
	code := splitContent(javaLexer.Code(in.content)).l
	own := javaOwnPackage(in.content)
	known := javaKnownTypes(in.content)
	for n := range javaPackageTypes(in.workspace, in.path) {
		known[n] = true
	}
	var project map[string][]string
	var adds []string
	conf := 0.9
	for _, r := range in.reports {
		if !reJavaCantFind.MatchString(r.Message) || r.LineNumber < 1 || r.LineNumber > len(code) {
			continue
		}
		line := code[r.LineNumber-1]
		for _, loc := range reJavaTypeUse.FindAllStringIndex(line, -1) {
			name := line[loc[0]:loc[1]]
			if known[name] || (loc[0] > 0 && line[loc[0]-1] == '.') || isConstantCase(name) {
				continue
			}
			if project == nil {
				project = javaProjectClasses(in.workspace, in.path)
			}
			if samePackage(project[name], own) || wildcardCovers(in.content, name, project[name]) {
				continue
			}
			pkg, c, ok := resolveJavaType(name, project[name], own)
			if !ok {
				continue
			}
			known[name] = true
			adds = append(adds, "import "+pkg+"."+name+";")
			conf = min(conf, c)
		}
	}
	if len(adds) == 0 {
		return edit{}, false, nil
	}
	sort.Strings(adds)
	insertJavaImports(&ls, adds)
	return edit{content: ls.String(), reason: "add the missing " + strings.Join(adds, " "), confidence: conf}, true, nil
}

func isConstantCase(s string) bool {
	return len(s) > 1 && strings.ToUpper(s) == s
}

func samePackage(pkgs []string, own string) bool {
	for _, p := range pkgs {
		if p == own {
			return true
		}
	}
	return false
}

// resolveJavaType picks the package of a simple type name: the project's
// one class of that name, else the JDK's (java.lang needs no import).
func resolveJavaType(name string, project []string, own string) (string, float64, bool) {
	if len(project) == 1 {
		return project[0], 0.9, true
	}
	if len(project) > 1 {
		return "", 0, false
	}
	pkgs := jdkClasses[name]
	for _, p := range pkgs {
		if p == "java.lang" {
			return "", 0, false
		}
	}
	switch {
	case len(pkgs) == 1:
		return pkgs[0], 0.9, true
	case len(pkgs) > 1:
		for _, pref := range javaPreferred {
			for _, p := range pkgs {
				if p == pref {
					return p, 0.8, true
				}
			}
		}
	}
	return "", 0, false
}

// javaKnownTypes returns the type names a file already has: its own
// declarations and type parameters, and its single-type imports.
func javaKnownTypes(content string) map[string]bool {
	known := map[string]bool{}
	code := javaLexer.Code(content)
	for _, m := range reJavaDeclType.FindAllStringSubmatch(code, -1) {
		known[m[1]+m[2]] = true
	}
	for _, m := range reJavaImportDec.FindAllStringSubmatch(code, -1) {
		if m[3] == "" {
			known[m[2][strings.LastIndex(m[2], ".")+1:]] = true
		}
	}
	return known
}

func javaOwnPackage(content string) string {
	if m := reJavaPkgDecl.FindStringSubmatch(javaLexer.Code(content)); m != nil {
		return m[1]
	}
	return ""
}

// javaProjectClasses maps the simple names of the project's top-level
// classes (one per .java file, by file name) to their packages. Build
// output and dependency folders are skipped; the walk is bounded.
func javaProjectClasses(ws, self string) map[string][]string {
	out := map[string][]string{}
	n := 0
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "target", "build", "out", "node_modules", ".gradle", ".idea":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".java") || n > 20000 {
			return nil
		}
		n++
		b, err := safefile.ReadOpts(p, 1<<20, safefile.Options{NoFollow: true})
		if err != nil {
			return nil
		}
		name := strings.TrimSuffix(path.Base(filepath.ToSlash(p)), ".java")
		pkg := ""
		if m := reJavaPkgDecl.FindSubmatch(b); m != nil {
			pkg = string(m[1])
		}
		out[name] = append(out[name], pkg)
		return nil
	})
	return out
}

// insertJavaImports adds import lines one by one (see insertJavaImport).
func insertJavaImports(ls *lines, adds []string) {
	for _, a := range adds {
		insertJavaImport(ls, a)
	}
}

// javaImport is one import line of a file's header.
type javaImport struct {
	line   int // 0-based
	name   string
	static bool
	group  int // imports with no blank line between them share a group
}

// javaHeaderImports lists the import lines of a file, up to its first
// type declaration, and the line of its package declaration (0-based, -1
// for none).
func javaHeaderImports(src []string) ([]javaImport, int) {
	var out []javaImport
	pkg, group := -1, 0
	blank := false
	for i, l := range src {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			blank = true
		case strings.HasPrefix(t, "import ") && strings.HasSuffix(t, ";"):
			if blank && len(out) > 0 {
				group++
			}
			blank = false
			name := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "import "), ";"))
			static := strings.HasPrefix(name, "static ")
			out = append(out, javaImport{line: i, name: strings.TrimSpace(strings.TrimPrefix(name, "static ")), static: static, group: group})
		case strings.HasPrefix(t, "package ") && pkg < 0:
			pkg = i
		case reJavaTypeStart.MatchString(t):
			return out, pkg
		}
	}
	return out, pkg
}

var reJavaTypeStart = lazyre.New(`^(@|((public|protected|private|final|abstract|sealed|non-sealed|static|strictfp)\s+)*(class|interface|enum|record)\b)`)

// insertJavaImport adds one import line where the file's own style puts
// it: into the group of imports it shares the longest package prefix with
// (the only group when none shares any), at its sorted place; into a new
// group when there are several and none shares its package root (java
// and javax before the others); after the static imports, in a group of
// its own, when there are only those (the Java style guide's order); after
// the package declaration, set off by a blank line, when the file has no
// import.
func insertJavaImport(ls *lines, add string) {
	imps, pkg := javaHeaderImports(ls.l)
	name := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(add, "import "), ";"))
	var plain []javaImport
	groups := map[int]bool{}
	for _, im := range imps {
		if !im.static {
			plain = append(plain, im)
			groups[im.group] = true
		}
	}
	if len(plain) == 0 {
		switch {
		case len(imps) > 0:
			insertLines(ls, imps[len(imps)-1].line+1, []string{"", add})
		case pkg >= 0:
			insertLines(ls, pkg+1, []string{"", add})
		default:
			insertLines(ls, 0, []string{add, ""})
		}
		return
	}
	best, bestLen := -1, 0
	for _, im := range plain {
		if n := javaMatchLen(name, im.name); n > bestLen {
			best, bestLen = im.group, n
		}
	}
	if best < 0 && len(groups) == 1 {
		best = plain[0].group
	}
	if best < 0 {
		root, _, _ := strings.Cut(name, ".")
		if root == "java" || root == "javax" {
			insertLines(ls, plain[0].line, []string{add, ""})
		} else {
			insertLines(ls, plain[len(plain)-1].line+1, []string{"", add})
		}
		return
	}
	at := -1
	for _, im := range plain {
		if im.group != best {
			continue
		}
		if im.name > name {
			at = im.line
			break
		}
		at = im.line + 1
	}
	insertLines(ls, at, []string{add})
}

// javaMatchLen is the number of leading package names a and b share.
func javaMatchLen(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	n := 0
	for n < len(as)-1 && n < len(bs)-1 && as[n] == bs[n] {
		n++
	}
	return n
}

// wildcardCovers reports whether a wildcard import of the file (import
// java.util.*;) already brings a class of that name, from the JDK or the
// project.
func wildcardCovers(content, name string, project []string) bool {
	for _, m := range reJavaImportDec.FindAllStringSubmatch(javaLexer.Code(content), -1) {
		if m[3] == "" || m[1] != "" {
			continue
		}
		for _, p := range append(append([]string{}, jdkClasses[name]...), project...) {
			if p == m[2] {
				return true
			}
		}
	}
	return false
}

// javaPackageTypes lists the types the other files of the file's folder
// (its package) declare, package-private ones included.
func javaPackageTypes(ws, file string) map[string]bool {
	out := map[string]bool{}
	dir := filepath.Join(ws, filepath.FromSlash(path.Dir(file)))
	es, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range es {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".java") || e.Name() == path.Base(file) {
			continue
		}
		b, err := safefile.ReadOpts(filepath.Join(dir, e.Name()), 1<<20, safefile.Options{NoFollow: true})
		if err != nil {
			continue
		}
		for _, m := range reJavaDeclType.FindAllStringSubmatch(javaLexer.Code(string(b)), -1) {
			if m[1] != "" {
				out[m[1]] = true
			}
		}
	}
	return out
}

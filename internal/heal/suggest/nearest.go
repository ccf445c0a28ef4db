package suggest

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/textdist"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
	"golang.org/x/mod/module"
)

// nearestApplicability marks a suggestion the tier made itself: the one
// name in scope nearest to an unresolved one.
const nearestApplicability = "Nearest"

var (
	reGoUndefined  = lazyre.New(`^undefined: ([A-Za-z_]\w*)\s*$`)
	reGoUndefinedQ = lazyre.New(`^undefined: ([A-Za-z_]\w*)\.([A-Z]\w*)\s*$`)
)

// nearest proposes, for Go's "undefined: x" and javac's "cannot find
// symbol", the name declared in scope nearest to x by edit distance, when
// exactly one name is nearest and it is close.
func (f *Fixer) nearest(ctx context.Context, in heal.FixInput, reports []contract.BugReport) ([]candidate, error) {
	switch ext(in.Path) {
	case ".go":
		var out []candidate
		for _, r := range reports {
			msg := firstLine(r.Message)
			if m := reGoUndefinedQ.FindStringSubmatch(msg); m != nil {
				names := goExported(in.Workspace, in.Path, in.Content, m[1])
				if c, ok := pick(m[2], names, nil, r); ok {
					e := &c.s.Edits[0]
					e.Old, e.New, e.Col = m[1]+"."+e.Old, m[1]+"."+e.New, r.Column
					out = append(out, c)
				}
				continue
			}
			if m := reGoNoMember.FindStringSubmatch(msg); m != nil && m[4] == "" {
				if c, ok := pick(m[3], goMembers(in.Workspace, in.Path, in.Content, m[2]), nil, r); ok {
					e := &c.s.Edits[0]
					e.Old, e.New, e.Col = m[1]+"."+e.Old, m[1]+"."+e.New, r.Column
					out = append(out, c)
				}
				continue
			}
			m := reGoUndefined.FindStringSubmatch(msg)
			if m == nil {
				continue
			}
			names := goScope(in.Workspace, in.Path, in.Content, r.LineNumber)
			if c, ok := pick(m[1], names, setOf(goUniverse), r); ok {
				out = append(out, c)
			}
		}
		return out, nil
	case ".py":
		var out []candidate
		for _, r := range reports {
			msg := firstLine(r.Message)
			if h, ok := logparse.HintFromReport(r); ok {
				// Python named the fix itself; the line's other unbound
				// names are still the next errors.
				if strings.HasPrefix(msg, "NameError: ") {
					out = append(out, pyOtherUnbound(in.Content, r, h.Edits[0].Old, pyScope(in.Content))...)
				}
				continue
			}
			if m := rePyNameError.FindStringSubmatch(msg); m != nil {
				scope := pyScope(in.Content)
				if c, ok := pick(m[1], scope, setOf(pyBuiltins), r); ok {
					out = append(out, c)
					// Python stops at the first unbound name; the line's
					// other ones would be the next errors.
					out = append(out, pyOtherUnbound(in.Content, r, m[1], scope)...)
				}
				continue
			}
			if m := rePyImportName.FindStringSubmatch(msg); m != nil {
				if names := pyModuleNames(in.Workspace, in.Path, m[2]); names != nil {
					if c, ok := pick(m[1], names, nil, r); ok {
						// The name imported is the name used: rename every use.
						e := c.s.Edits[0]
						c.s.Edits = nil
						for i, l := range strings.Split(in.Content, "\n") {
							if hasCodeWord(pyLexer, l, m[1]) {
								c.s.Edits = append(c.s.Edits, logparse.Edit{File: e.File, Line: i + 1, Start: -1, End: -1, Old: e.Old, New: e.New})
							}
						}
						out = append(out, c)
					}
				}
				continue
			}
			if c, ok := pyBuiltinAttr(in.Content, msg, r); ok {
				out = append(out, c)
				continue
			}
			m := rePyAttrError.FindStringSubmatch(msg)
			if m == nil || r.LineNumber < 1 {
				continue
			}
			ls := strings.Split(in.Content, "\n")
			if r.LineNumber > len(ls) || !lazyre.New(`\bself\.`+regexp.QuoteMeta(m[1])+`\b`).MatchString(ls[r.LineNumber-1]) {
				continue
			}
			if c, ok := pick(m[1], pySelfAttrs(in.Content), nil, r); ok {
				e := &c.s.Edits[0]
				e.Old, e.New, e.Col = "self."+e.Old, "self."+e.New, 0
				out = append(out, c)
			}
		}
		return out, nil
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		var out []candidate
		for _, r := range reports {
			if _, ok := logparse.HintFromReport(r); ok {
				continue
			}
			m := reJSRefError.FindStringSubmatch(firstLine(r.Message))
			if m == nil {
				continue
			}
			if c, ok := pick(m[1], jsScope(in.Content), setOf(jsGlobals), r); ok {
				out = append(out, c)
			}
		}
		return out, nil
	case ".java":
		c, err := f.rerunFor(ctx, in, reports)
		if err != nil {
			return nil, err
		}
		var out []candidate
		for _, r := range reports {
			for _, s := range c.syms {
				if s.File != in.Path || s.Line != r.LineNumber {
					continue
				}
				names, global := javaScope(in.Workspace, in.Path, in.Content, s.Kind)
				rr := r
				rr.Column, rr.Message = s.Column, r.Message+": "+s.Kind+" "+s.Name
				if c, ok := pick(s.Name, names, global, rr); ok {
					out = append(out, c)
				}
			}
		}
		return out, nil
	}
	return nil, nil
}

// pick returns the replacement of name by its unique nearest candidate
// in the nearer scope (local), else in the outer one (global: builtins,
// predeclared names): a name of the file that is close wins over a
// builtin that is as close.
func pick(name string, local, global map[string]bool, r contract.BugReport) (candidate, bool) {
	if local[name] || global[name] {
		return candidate{}, false // declared after all: not a misspelling
	}
	best, d, n := nearestIn(name, local)
	if n == 0 {
		best, d, n = nearestIn(name, global)
	}
	if n != 1 {
		return candidate{}, false
	}
	conf := ConfNearest
	if d == 2 {
		conf = ConfNearest2
	}
	s := logparse.Suggestion{File: r.FilePath, Line: r.LineNumber, Column: r.Column, Message: r.Message, Tool: r.Tool, Applicability: nearestApplicability,
		Label: "edit distance " + strconv.Itoa(d),
		Edits: []logparse.Edit{{File: r.FilePath, Line: r.LineNumber, Col: r.Column, Start: -1, End: -1, Old: name, New: best}}}
	return candidate{s, conf}, true
}

// nearestIn returns the names of names nearest to name within the limit
// (none for names shorter than 3 characters, 1 edit up to 4, 2 above):
// the first of them, the distance, and how many there are.
func nearestIn(name string, names map[string]bool) (string, int, int) {
	limit := 1
	switch {
	case len(name) < 3:
		return "", 0, 0 // any name is a letter or two away from a short one
	case len(name) > 4:
		limit = 2
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, bestD, n := "", limit+1, 0
	for _, k := range keys {
		d := distance(name, k)
		switch {
		case d < bestD:
			best, bestD, n = k, d, 1
		case d == bestD:
			n++
		}
	}
	if bestD > limit {
		return "", 0, 0
	}
	return best, bestD, n
}

// distance is textdist's distance of a and b, cut short when their
// lengths alone put them more than 3 apart.
func distance(a, b string) int {
	if d := len(a) - len(b); d > 3 || d < -3 {
		return 4
	}
	return textdist.Distance(a, b)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// goUniverse is Go's predeclared identifiers.
var goUniverse = strings.Fields(`any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil append cap clear close complex copy delete imag len make max min new panic print println real recover`)

// goScope lists the names in scope at line of a Go file (the predeclared
// ones are goUniverse): the package's top-level declarations (every file of the folder
// with the same package clause), the file's imports, and the locals of the
// enclosing function declared up to the line.
func goScope(ws, file, content string, line int) map[string]bool {
	names := map[string]bool{}
	fset, self, files := goPackageFiles(ws, file, content)
	if self == nil {
		return names
	}
	for _, af := range files {
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				addSpecs(names, d.Specs)
			}
		}
	}
	for _, is := range self.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		switch {
		case is.Name != nil:
			names[is.Name.Name] = true
		default:
			names[p[strings.LastIndex(p, "/")+1:]] = true
		}
	}
	delete(names, "_")
	delete(names, ".")
	for _, d := range self.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fset.Position(fd.Pos()).Line > line || fset.Position(fd.End()).Line < line {
			continue
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			if n == nil || fset.Position(n.Pos()).Line > line {
				return false
			}
			switch x := n.(type) {
			case *ast.Field:
				for _, id := range x.Names {
					names[id.Name] = true
				}
			case *ast.AssignStmt:
				if x.Tok == token.DEFINE {
					for _, e := range x.Lhs {
						if id, ok := e.(*ast.Ident); ok {
							names[id.Name] = true
						}
					}
				}
			case *ast.RangeStmt:
				if x.Tok == token.DEFINE {
					for _, e := range []ast.Expr{x.Key, x.Value} {
						if id, ok := e.(*ast.Ident); ok {
							names[id.Name] = true
						}
					}
				}
			case *ast.DeclStmt:
				if gd, ok := x.Decl.(*ast.GenDecl); ok {
					addSpecs(names, gd.Specs)
				}
			}
			return true
		})
	}
	delete(names, "_")
	return names
}

func addSpecs(names map[string]bool, specs []ast.Spec) {
	for _, s := range specs {
		switch s := s.(type) {
		case *ast.ValueSpec:
			for _, id := range s.Names {
				names[id.Name] = true
			}
		case *ast.TypeSpec:
			names[s.Name.Name] = true
		}
	}
}

var (
	reJavaVar    = lazyre.New(`[\w$>\]]\s+([a-zA-Z_$][\w$]*)\s*(?:=[^=]|;|,|\)|:[^:])`)
	reJavaMethod = lazyre.New(`([a-zA-Z_$][\w$]*)\s*\([^;{}()]*\)\s*(?:throws\s+[\w$.,\s]+)?\{`)
	reJavaType   = lazyre.New(`\b(?:class|interface|enum|record)\s+([A-Z][\w$]*)`)
	reJavaImport = lazyre.New(`(?m)^\s*import\s+(?:static\s+)?[\w.$]*\.([\w$]+)\s*;`)
	// javaLexer blanks Java's comments and literals, so that declarations
	// are found in code only.
	javaLexer = lang.ByName("java")
	// pyLexer tells the code of a Python line from its literals and
	// comment.
	pyLexer      = lang.ByName("python")
	javaKeywords = map[string]bool{}
)

func init() {
	for _, k := range strings.Fields(`abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while var record yield true false null`) {
		javaKeywords[k] = true
	}
}

// javaScope lists the names of a kind javac could not find, declared in
// the file or the other files of its folder (the package): variables
// (fields, parameters, locals), methods, or types (with the simple names
// of the file's imports; the common java.lang types are returned apart, as
// the outer scope).
func javaScope(ws, file, content, kind string) (map[string]bool, map[string]bool) {
	srcs := []string{javaLexer.Code(content)}
	dir := filepath.Join(ws, filepath.FromSlash(path.Dir(file)))
	if es, err := os.ReadDir(dir); err == nil {
		for _, e := range es {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".java") || e.Name() == path.Base(file) {
				continue
			}
			if b, err := safefile.ReadOpts(filepath.Join(dir, e.Name()), 1<<20-1, safefile.Options{NoFollow: true}); err == nil {
				srcs = append(srcs, javaLexer.Code(string(b)))
			}
		}
	}
	names := map[string]bool{}
	add := func(re *lazyre.Regexp, s string) {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if !javaKeywords[m[1]] {
				names[m[1]] = true
			}
		}
	}
	switch kind {
	case "variable":
		add(reJavaVar, srcs[0]) // locals and fields of this file; other files' fields are not in scope unqualified
	case "method":
		add(reJavaMethod, srcs[0])
	case "class", "interface", "enum", "record":
		for _, s := range srcs {
			add(reJavaType, s)
		}
		add(reJavaImport, srcs[0])
		return names, setOf(javaLang)
	}
	return names, nil
}

// javaLang is the java.lang types every Java file sees unqualified.
var javaLang = strings.Fields(`Boolean Byte Character Class ClassLoader Double Enum Error Exception Float IllegalArgumentException IllegalStateException IndexOutOfBoundsException Integer InterruptedException Iterable Long Math NullPointerException Number NumberFormatException Object Override Process ProcessBuilder Record Runnable Runtime RuntimeException Short StackOverflowError String StringBuffer StringBuilder System Thread Throwable UnsupportedOperationException Void AutoCloseable CharSequence Comparable Cloneable Deprecated FunctionalInterface SuppressWarnings SafeVarargs ArithmeticException ArrayIndexOutOfBoundsException ClassCastException ClassNotFoundException CloneNotSupportedException OutOfMemoryError AssertionError`)

// goExported lists the exported top-level names of the package a Go file
// imports as pkg: a standard library package (GOROOT's sources), or a
// package of the file's own module. Other modules' packages are not read.
func goExported(ws, file, content, pkg string) map[string]bool {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, file, content, parser.ImportsOnly)
	if err != nil {
		return nil
	}
	imp := ""
	for _, is := range af.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if is.Name != nil {
			name = is.Name.Name
		}
		if name == pkg {
			imp = p
		}
	}
	// The import path is the file's text: one with ".." (or any element
	// Go refuses) could name a folder outside GOROOT or the module.
	if imp == "" || module.CheckImportPath(imp) != nil {
		return nil
	}
	var dir string
	if root := goroot(); root != "" && !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
		dir = filepath.Join(root, filepath.FromSlash(imp))
	} else if mdir, mod := goModule(ws, filepath.Join(ws, filepath.FromSlash(path.Dir(file)))); mod != "" && (imp == mod || strings.HasPrefix(imp, mod+"/")) {
		dir = filepath.Join(mdir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/")))
	}
	if dir == "" {
		return nil
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	names := map[string]bool{}
	for _, e := range es {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := safefile.ReadOpts(filepath.Join(dir, n), safefile.MaxSource, safefile.Options{NoFollow: true})
		if err != nil {
			continue
		}
		f, _ := parser.ParseFile(fset, n, b, parser.SkipObjectResolution)
		if f == nil {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				tmp := map[string]bool{}
				addSpecs(tmp, d.Specs)
				for k := range tmp {
					if ast.IsExported(k) {
						names[k] = true
					}
				}
			}
		}
	}
	return names
}

// goroot finds the standard library's sources: $GOROOT, else the folder
// above the bin/ holding the go found in PATH. The toolchain that built
// salve is not asked (runtime.GOROOT): its folder need not exist where
// salve runs, and release builds (-trimpath) do not record it.
func goroot() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return filepath.Join(r, "src")
	}
	if g, err := exec.LookPath("go"); err == nil {
		if real, err := filepath.EvalSymlinks(g); err == nil {
			return filepath.Join(filepath.Dir(filepath.Dir(real)), "src")
		}
	}
	return ""
}

// goModule walks up from dir to the workspace looking for go.mod and
// returns its folder and module path.
func goModule(ws, dir string) (string, string) {
	for {
		b, err := safefile.Read(filepath.Join(dir, "go.mod"), safefile.MaxConfig)
		if err == nil {
			if m := reModule.FindSubmatch(b); m != nil {
				return dir, strings.Trim(string(m[1]), `"`)
			}
			return "", ""
		}
		if dir == ws || len(dir) <= len(ws) {
			return "", ""
		}
		dir = filepath.Dir(dir)
	}
}

var reModule = lazyre.New(`(?m)^module\s+(\S+)`)

var (
	rePyNameError  = lazyre.New(`^NameError: name '(\w+)' is not defined\.?$`)
	rePyImportName = lazyre.New(`^ImportError: cannot import name '(\w+)' from '([\w.]+)'`)
	rePyTopLevel   = lazyre.New(`(?m)^(?:async\s+def|def|class)\s+(\w+)|^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=[^=]`)
	rePyAttrError  = lazyre.New(`^AttributeError: '\w+' object has no attribute '(\w+)'\.?$`)
	rePyDef        = lazyre.New(`(?m)^\s*(?:async\s+)?def\s+(\w+)\s*\(([^)]*)\)`)
	rePyClass      = lazyre.New(`(?m)^\s*class\s+(\w+)`)
	rePyAssignT    = lazyre.New(`(?m)^\s*([A-Za-z_][\w, ]*?)\s*(?::[^=\n]+)?=[^=]`)
	rePyForT       = lazyre.New(`\bfor\s+([\w, ]+?)\s+in\b`)
	rePyAsT        = lazyre.New(`\bas\s+(\w+)`)
	rePyImportT    = lazyre.New(`(?m)^\s*(?:from\s+[\w.]+\s+)?import\s+([\w., ]+)`)
	rePySelfSet    = lazyre.New(`\bself\.(\w+)\s*(?::[^=\n]+)?=[^=]`)
	rePyMethod     = lazyre.New(`(?m)^\s+(?:async\s+)?def\s+(\w+)\s*\(\s*self\b`)
)

// pyBuiltins is Python's builtins module (dir(builtins), public names).
var pyBuiltins = strings.Fields(`ArithmeticError AssertionError AttributeError BaseException BlockingIOError BrokenPipeError BufferError BytesWarning
ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis
EncodingWarning EnvironmentError Exception False FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit
IOError ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError
ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError OSError OverflowError PendingDeprecationWarning
PermissionError ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration
SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError
UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin bool breakpoint
bytearray bytes callable chr classmethod compile complex delattr dict dir divmod enumerate eval exec filter float format
frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next object
oct open ord pow print property range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip`)

// pyScope lists the names a Python module binds anywhere (functions,
// classes, parameters, assignment, loop, with/except and import targets):
// a superset of what is in scope at any line, good enough to find the one
// name a misspelling is close to. The builtins are pyBuiltins.
func pyScope(content string) map[string]bool {
	names := map[string]bool{}
	addList := func(list string) {
		for _, p := range strings.Split(list, ",") {
			p = strings.TrimSpace(p)
			if i := strings.IndexAny(p, ":=*"); i >= 0 {
				p = strings.TrimSpace(strings.Trim(p[:i], "*"))
			}
			if f := strings.Fields(p); len(f) > 0 {
				p = f[len(f)-1]
			}
			p = strings.TrimLeft(p, "*")
			if p != "" && p != "self" && p != "cls" {
				names[p] = true
			}
		}
	}
	for _, m := range rePyDef.FindAllStringSubmatch(content, -1) {
		names[m[1]] = true
		addList(m[2])
	}
	for _, re := range []*lazyre.Regexp{rePyClass, rePyAssignT, rePyForT, rePyAsT, rePyImportT} {
		for _, m := range re.FindAllStringSubmatch(content, -1) {
			addList(strings.ReplaceAll(m[1], ".", ","))
		}
	}
	return names
}

// pySelfAttrs lists the attributes a module's classes set on self and
// their methods.
func pySelfAttrs(content string) map[string]bool {
	names := map[string]bool{}
	for _, re := range []*lazyre.Regexp{rePySelfSet, rePyMethod} {
		for _, m := range re.FindAllStringSubmatch(content, -1) {
			names[m[1]] = true
		}
	}
	return names
}

// pyModuleNames lists the top-level names of a module of the project (a
// file beside the importing one, or from the workspace root or src/), or
// nil when the module is not the project's.
func pyModuleNames(ws, file, mod string) map[string]bool {
	rel := strings.ReplaceAll(mod, ".", "/")
	for _, dir := range []string{path.Dir(file), ".", "src"} {
		for _, cand := range []string{rel + ".py", rel + "/__init__.py"} {
			abs, err := heal.Confine(ws, path.Join(dir, cand))
			if err != nil {
				continue
			}
			b, err := safefile.ReadOpts(abs, 1<<20, safefile.Options{NoFollow: true})
			if err != nil {
				continue
			}
			names := map[string]bool{}
			for _, m := range rePyTopLevel.FindAllStringSubmatch(string(b), -1) {
				names[m[1]+m[2]] = true
			}
			return names
		}
	}
	return nil
}

var (
	reJSRefError = lazyre.New(`^(?:Uncaught )?ReferenceError: ([\w$]+) is not defined$`)
	reJSDecls    = lazyre.New(`\b(?:const|let|var|function\*?|class|import)\s+([\w$]+)`)
	reJSLists    = lazyre.New(`(?:function\s*\*?\s*[\w$]*\s*|=>\s*|\b(?:const|let|var|import)\s*)[({]([^(){}]*)[)}]|\(([^()]*)\)\s*=>|([\w$]+)\s*=>`)
)

// jsGlobals are the globals of JavaScript and node a misspelling may be
// meant for.
var jsGlobals = strings.Fields(`Array Boolean Buffer Date Error JSON Map Math Number Object Promise Proxy RegExp Set String Symbol TypeError URL
WeakMap console clearInterval clearTimeout decodeURIComponent encodeURIComponent globalThis isNaN module parseFloat parseInt process
require setInterval setTimeout structuredClone undefined exports __dirname __filename fetch`)

// jsScope lists the names a JavaScript or TypeScript file declares
// (variables, functions, classes, parameters, destructured and imported
// names); the usual globals are jsGlobals.
func jsScope(content string) map[string]bool {
	names := map[string]bool{}
	for _, m := range reJSDecls.FindAllStringSubmatch(content, -1) {
		names[m[1]] = true
	}
	for _, m := range reJSLists.FindAllStringSubmatch(content, -1) {
		for _, p := range strings.Split(m[1]+","+m[2]+","+m[3], ",") {
			p = strings.TrimSpace(p)
			if i := strings.IndexAny(p, "=:"); i >= 0 {
				p = strings.TrimSpace(p[:i])
			}
			if f := strings.Fields(p); len(f) > 0 {
				p = f[len(f)-1]
			}
			p = strings.TrimLeft(p, ".")
			if p != "" && isJSIdent(p) {
				names[p] = true
			}
		}
	}
	return names
}

func isJSIdent(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

var (
	rePyIdent  = lazyre.New(`[A-Za-z_]\w*`)
	rePyStar   = lazyre.New(`(?m)^\s*from\s+\S+\s+import\s+\*`)
	pyKeywords = setOf(strings.Fields(`False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case self cls`))
)

// pyOtherUnbound proposes fixes for the other names of a NameError's line
// that the module binds nowhere (not a builtin, an attribute, a keyword
// argument or a keyword): each is certain to be the next NameError. A
// module with a star import is left alone, since it may bind anything.
func pyOtherUnbound(content string, r contract.BugReport, first string, scope map[string]bool) []candidate {
	ls := strings.Split(content, "\n")
	if r.LineNumber < 1 || r.LineNumber > len(ls) || rePyStar.MatchString(content) {
		return nil
	}
	line := ls[r.LineNumber-1]
	code := codeMask(pyLexer, line)
	builtins := setOf(pyBuiltins)
	var out []candidate
	seen := map[string]bool{first: true}
	for _, loc := range rePyIdent.FindAllStringIndex(line, -1) {
		name := line[loc[0]:loc[1]]
		if !code[loc[0]] || seen[name] || pyKeywords[name] || scope[name] || builtins[name] {
			continue
		}
		if loc[0] > 0 && (line[loc[0]-1] == '.' || line[loc[0]-1] >= '0' && line[loc[0]-1] <= '9') {
			continue
		}
		if rest := strings.TrimLeft(line[loc[1]:], " "); strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") {
			continue // a keyword argument or an assignment
		}
		seen[name] = true
		rr := r
		rr.Column, rr.Message = loc[0]+1, "NameError: name '"+name+"' is not defined"
		if c, ok := pick(name, scope, builtins, rr); ok {
			out = append(out, c)
		}
	}
	return out
}

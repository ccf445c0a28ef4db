package suggest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/safefile"
)

// reGoNoMember reads the go compiler's "x.Name undefined (type T has no
// field or method Name)": the expression before the dot, the type (without
// its pointer star), the missing name, and Go's own hint when it gives one
// ("but does have field Other"), which the hint reader handles instead.
var reGoNoMember = lazyre.New(`^(\S+)\.[A-Za-z_]\w* undefined \(type \*?([A-Za-z_]\w*) has no field or method ([A-Za-z_]\w*)(, but does have (?:field|method) \w+)?\)`)

// goPackageFiles parses file (its content as given) and the other files of
// its package in the same folder; a test file sees the package's tests
// too, a plain file does not. self is nil when file does not parse.
func goPackageFiles(ws, file, content string) (fset *token.FileSet, self *ast.File, files []*ast.File) {
	fset = token.NewFileSet()
	self, err := parser.ParseFile(fset, file, content, parser.SkipObjectResolution)
	if err != nil && self == nil {
		return fset, nil, nil
	}
	files = []*ast.File{self}
	dir := filepath.Join(ws, filepath.FromSlash(path.Dir(file)))
	es, err := os.ReadDir(dir)
	if err != nil {
		return fset, self, files
	}
	for _, e := range es {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || n == path.Base(file) || (strings.HasSuffix(n, "_test.go") && !strings.HasSuffix(file, "_test.go")) {
			continue
		}
		b, err := safefile.ReadOpts(filepath.Join(dir, n), 4<<20, safefile.Options{NoFollow: true})
		if err != nil {
			continue
		}
		if af, _ := parser.ParseFile(fset, n, b, parser.SkipObjectResolution); af != nil && af.Name != nil && af.Name.Name == self.Name.Name {
			files = append(files, af)
		}
	}
	return fset, self, files
}

// goMembers returns the fields and methods of the package's type typ: the
// struct's field names (an embedded field by its type's name) and every
// method declared with typ or *typ as receiver. Empty when typ is not a
// type of the file's package.
func goMembers(ws, file, content, typ string) map[string]bool {
	names := map[string]bool{}
	_, _, files := goPackageFiles(ws, file, content)
	for _, af := range files {
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 && recvType(d.Recv.List[0].Type) == typ {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok || ts.Name.Name != typ {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, f := range st.Fields.List {
						if len(f.Names) == 0 {
							if n := recvType(f.Type); n != "" {
								names[n] = true
							}
						}
						for _, n := range f.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// recvType names the type of a receiver or embedded field: T, *T, T[P],
// pkg.T (as T).
func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return recvType(t.X)
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

// rePyBuiltinAttr reads "AttributeError: 'str' object has no attribute
// 'lowr'" (Python says no "Did you mean" here before 3.12 under unittest).
var rePyBuiltinAttr = lazyre.New(`^AttributeError: '(\w+)' object has no attribute '(\w+)'\.?$`)

// pyBuiltinAttr fixes an attribute misspelt on a value of a built-in type
// (str, list, dict…): the type's nearest attribute, when it is unique and
// close, and the reported line holds the attribute exactly once.
func pyBuiltinAttr(content, msg string, r contract.BugReport) (candidate, bool) {
	m := rePyBuiltinAttr.FindStringSubmatch(msg)
	if m == nil || r.LineNumber < 1 {
		return candidate{}, false
	}
	attrs, ok := pyBuiltinAttrs[m[1]]
	if !ok {
		return candidate{}, false
	}
	ls := strings.Split(content, "\n")
	if r.LineNumber > len(ls) || len(lazyre.New(`\.`+regexp.QuoteMeta(m[2])+`\b`).FindAllStringIndex(ls[r.LineNumber-1], -1)) != 1 {
		return candidate{}, false
	}
	c, ok := pick(m[2], setOf(attrs), nil, r)
	if !ok {
		return candidate{}, false
	}
	e := &c.s.Edits[0]
	e.Old, e.New, e.Col = "."+e.Old, "."+e.New, 0
	return c, true
}

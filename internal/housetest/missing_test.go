package housetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// missingWordings are pieces of the toolchains' messages that say a name
// is missing. A regular expression holding one reads such a message.
var missingWordings = []string{
	"undefined: ", "is not defined", "cannot find name", "cannot find symbol", "cannot find value", "has no attribute",
	"has no field or method", "undeclared", "not declared", "has not been declared", "is not a member of", "no member named",
	"in this scope", "cannot import name", "no exported member", "does not exist on type", "unresolved reference",
	"cannot be resolved", "is not a function", "nameerror", "referenceerror",
}

// TestMissingWordingsHaveOneHome keeps internal/heal/missing the one table
// of how the toolchains say a name is missing. A regular expression in a
// non-test Go file elsewhere that holds one of those wordings (a tier or
// the parser reading more than the name) must be held to the table: a
// test of its package calls missingtest.Hold and names the variable (or
// the function) that holds the expression. A wording the table lacks then
// fails that test.
func TestMissingWordingsHaveOneHome(t *testing.T) {
	found := findOutside(t, "internal/heal/missing", func(p string) ([]string, error) {
		owners, err := wordingOwners(p)
		if err != nil || len(owners) == 0 {
			return nil, err
		}
		held, err := heldNames(filepath.Dir(p))
		if err != nil {
			return nil, err
		}
		var out []string
		for _, o := range owners {
			if !held(o) {
				out = append(out, o)
			}
		}
		return out, nil
	})
	for _, f := range found {
		t.Errorf("%s reads a missing-name wording that no test holds to internal/heal/missing: list it in a missingtest.Hold case of its package's tests", f)
	}
}

// wordingOwners returns the names of the package-level variables (or
// functions) of Go file p that hold a regular expression with a
// missing-name wording.
func wordingOwners(p string) ([]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	note := func(owner string, n ast.Node) {
		if !seen[owner] && holdsWording(n) {
			seen[owner] = true
			out = append(out, owner)
		}
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			note(d.Name.Name, d)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, v := range vs.Values {
					if i < len(vs.Names) {
						note(vs.Names[i].Name, v)
					}
				}
			}
		}
	}
	return out, nil
}

// holdsWording reports whether n compiles a regular expression (lazyre.New,
// regexp.MustCompile, regexp.Compile) whose literal text holds a
// missing-name wording.
func holdsWording(n ast.Node) bool {
	hit := false
	ast.Inspect(n, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || hit || len(call.Args) == 0 {
			return !hit
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || !(pkg.Name == "lazyre" && sel.Sel.Name == "New" || pkg.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile") || pkg.Name == "regexp" && sel.Sel.Name == "Compile") {
			return true
		}
		text := strings.ToLower(literalText(call.Args[0]))
		for _, w := range missingWordings {
			if strings.Contains(text, w) {
				hit = true
			}
		}
		return !hit
	})
	return hit
}

// literalText joins the string literals of an expression.
func literalText(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil {
				b.WriteString(v)
			}
		}
		return true
	})
	return b.String()
}

// heldNames reads the tests of folder dir that call missingtest.Hold, and
// returns whether one of them names an identifier.
func heldNames(dir string) (func(string) bool, error) {
	tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	for _, f := range tests {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if strings.Contains(string(b), "missingtest.Hold(") {
			text.Write(b)
		}
	}
	s := text.String()
	return func(name string) bool {
		return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(s)
	}, nil
}

package housetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestLexerHasOneHome keeps internal/lang the one lexer of source text:
// what is a comment, a string literal or code, in every language.
// Copies once lived in the code-under-test resolver, the rules, suggest
// and history tiers and a package of their own, each knowing other
// literals and comments. A function of a non-test Go file elsewhere
// fails when it compares bytes with a quote character and with the first
// byte of a comment ("/" or "#"), or a byte with the ones one and two
// places on (a triple quote): it should call lang's Spans, Code, Hollow,
// SplitLine, Comments or Interpolations, and what a row lacks goes into
// the table.
func TestLexerHasOneHome(t *testing.T) {
	for _, f := range findOutside(t, "internal/lang", lexerFuncs) {
		t.Errorf("%s: a second lexer? Use internal/lang (Spans, Code, Hollow, SplitLine, Comments, Interpolations)", f)
	}
}

// lexerFuncs returns the functions of Go file p that test bytes as a
// lexer does, each as "name (why)".
func lexerFuncs(p string) ([]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		chars := map[string]bool{}
		triple := map[string]int{} // the value compared with x[i+1] and x[i+2]
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.CHAR {
					chars[n.Value] = true
				}
			case *ast.BinaryExpr:
				if n.Op != token.EQL {
					break
				}
				if k := plusIndex(n.X); k != "" {
					triple[k+"="+exprText(n.Y)]++
				}
			}
			return true
		})
		quote := chars[`'"'`] || chars[`'\''`] || chars["'`'"]
		var why string
		switch {
		case quote && chars[`'/'`]:
			why = "compares bytes with a quote and '/'"
		case quote && chars[`'#'`]:
			why = "compares bytes with a quote and '#'"
		default:
			for k := range triple {
				if one, v, _ := strings.Cut(k, "="); one == "1" && triple["2="+v] > 0 {
					why = "compares a byte one and two places on with " + v
				}
			}
		}
		if why != "" {
			out = append(out, fn.Name.Name+" ("+why+")")
		}
	}
	return out, nil
}

// plusIndex returns n for an index expression x[i+n] with n a literal.
func plusIndex(e ast.Expr) string {
	ix, ok := e.(*ast.IndexExpr)
	if !ok {
		return ""
	}
	b, ok := ix.Index.(*ast.BinaryExpr)
	if !ok || b.Op != token.ADD {
		return ""
	}
	if lit, ok := b.Y.(*ast.BasicLit); ok && lit.Kind == token.INT {
		return lit.Value
	}
	return ""
}

// exprText names a compared value: an identifier or a literal.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		return e.Value
	}
	return "?"
}

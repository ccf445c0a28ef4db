package rules

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

var (
	// go vet's printf analyzer: "fmt.Sprintf format %d has arg x of wrong type string".
	reVetWrongType = lazyre.New(`format (%[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?[a-zA-Z]) has arg .+ of wrong type (\S+)`)
	// "fmt.Println arg list ends with redundant newline".
	reVetNewline = lazyre.New(`^\S+ arg list ends with redundant newline$`)
	// "(*testing.common).Log call has possible Printf formatting directive %d".
	reVetDirective = lazyre.New(`^(?:\S+\.)?(\w+) call has possible Printf formatting directive %`)
	// go test's loader: "wrong signature for TestX, must be: func TestX(t *testing.T)".
	reTestSignature = lazyre.New(`wrong signature for (\w+), must be: func (\w+)\((\w) \*testing\.([TBFM])\)`)
)

// verbFor is the verb that prints a value of a basic type as intended;
// any other type (named, composite, error) is printed with %v.
var verbFor = map[string]byte{
	"string": 's', "[]byte": 's', "bool": 't',
	"int": 'd', "int8": 'd', "int16": 'd', "int32": 'd', "int64": 'd',
	"uint": 'd', "uint8": 'd', "uint16": 'd', "uint32": 'd', "uint64": 'd', "uintptr": 'd', "byte": 'd',
}

// printfForms are the print functions whose f form takes the same
// arguments after a format: the one-line forms without "ln", whose
// output a format that consumes every argument does not change.
var printfForms = map[string]bool{"Log": true, "Error": true, "Fatal": true, "Skip": true, "Print": true, "Panic": true,
	"Sprint": true, "Fprint": true}

// fixGoVetPrintf applies the small fixes go vet's printf findings call
// for when the finding itself says what the fix is: a verb of the wrong
// type for its argument (the argument's type is in the message), a
// redundant trailing newline, a Printf directive in a print call whose
// f form takes the same arguments. Argument-count mismatches say nothing
// of which argument is missing or extra, and are left alone.
func fixGoVetPrintf(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	var reasons []string
	changed := false
	for _, r := range in.reports {
		if r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		line := ls.l[r.LineNumber-1]
		var out, why string
		switch {
		case reVetWrongType.MatchString(r.Message):
			out, why = fixVerb(line, r)
		case reVetNewline.MatchString(r.Message):
			out, why = dropNewline(line, r)
		case reVetDirective.MatchString(r.Message):
			out, why = toPrintf(in.content, line, r)
		}
		if why == "" || out == line {
			continue
		}
		ls.l[r.LineNumber-1] = out
		reasons = append(reasons, fmt.Sprintf("%s (line %d)", why, r.LineNumber))
		changed = true
	}
	if !changed {
		return edit{}, false, nil
	}
	return edit{content: ls.String(), reason: "go vet printf: " + strings.Join(reasons, "; "), confidence: 0.85}, true, nil
}

// fixVerb replaces the verb vet names, at the reported column, by the
// verb of the argument's type.
func fixVerb(line string, r contract.BugReport) (string, string) {
	m := reVetWrongType.FindStringSubmatch(r.Message)
	op, typ := m[1], strings.TrimSuffix(m[2], ",")
	c := r.Column - 1
	if c < 1 || c+len(op) > len(line) || line[c:c+len(op)] != op || !inStringLiteral(line, c) {
		return line, ""
	}
	want, ok := verbFor[typ]
	if !ok {
		want = 'v'
	}
	if op[len(op)-1] == want || op[len(op)-1] == 'w' && want != 'v' {
		return line, "" // vet would not complain; or %w, whose fix is not a verb
	}
	fixed := op[:len(op)-1] + string(want)
	return line[:c] + fixed + line[c+len(op):], fmt.Sprintf("%s → %s for an argument of type %s", op, fixed, typ)
}

// inStringLiteral reports whether byte c of line lies inside a "..."
// literal (an odd number of unescaped quotes before it).
func inStringLiteral(line string, c int) bool {
	quotes := 0
	for i := 0; i < c; i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			quotes++
		}
	}
	return quotes%2 == 1
}

// dropNewline removes the \n that ends the last argument of the print
// call at the reported line, when that argument is a string literal.
func dropNewline(line string, r contract.BugReport) (string, string) {
	i := strings.LastIndex(line, `\n")`)
	if i < 0 || strings.Count(line, `\n")`) != 1 {
		return line, ""
	}
	return line[:i] + line[i+2:], `drop the redundant "\n" of a print call`
}

// toPrintf turns a print call holding a Printf directive into its f form,
// when the format's directives consume exactly the call's other
// arguments.
func toPrintf(content, line string, r contract.BugReport) (string, string) {
	name := reVetDirective.FindStringSubmatch(r.Message)[1]
	if !printfForms[name] {
		return line, ""
	}
	call := callAt(content, r.LineNumber, name)
	if call == nil || len(call.Args) == 0 {
		return line, ""
	}
	first := 0
	if name == "Fprint" {
		first = 1
	}
	if len(call.Args) <= first {
		return line, ""
	}
	lit, ok := call.Args[first].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return line, ""
	}
	format, err := strconv.Unquote(lit.Value)
	if err != nil || countVerbs(format) != len(call.Args)-first-1 {
		return line, ""
	}
	i := strings.Index(line, name+"(")
	if i < 0 || strings.Count(line, name+"(") != 1 {
		return line, ""
	}
	return line[:i] + name + "f" + line[i+len(name):], fmt.Sprintf("%s → %sf, whose format consumes its arguments", name, name)
}

// callAt finds the one call of a function or method named name that
// starts on line.
func callAt(content string, line int, name string) *ast.CallExpr {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", content, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var found *ast.CallExpr
	n := 0
	ast.Inspect(file, func(x ast.Node) bool {
		c, ok := x.(*ast.CallExpr)
		if !ok || fset.Position(c.Pos()).Line != line {
			return true
		}
		var id *ast.Ident
		switch f := c.Fun.(type) {
		case *ast.Ident:
			id = f
		case *ast.SelectorExpr:
			id = f.Sel
		}
		if id != nil && id.Name == name {
			found = c
			n++
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return found
}

// countVerbs counts the directives of a format that take an argument.
func countVerbs(format string) int {
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.[]", format[i]) >= 0 {
			i++
		}
		if i < len(format) && format[i] != '%' {
			n++
		}
	}
	return n
}

// fixTestSignature gives a test, benchmark or fuzz function the
// signature go test asks for: it drops parameters after the first when
// the body never names them, adds the missing parameter of a function
// that has none, or makes a testing.T parameter a pointer. A function
// with results is left alone (its body would change).
func fixTestSignature(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	var wanted []contract.BugReport
	for _, r := range in.reports {
		if reTestSignature.MatchString(r.Message) {
			wanted = append(wanted, r)
		}
	}
	if len(wanted) == 0 {
		return edit{}, false, nil
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", in.content, parser.SkipObjectResolution)
	if err != nil {
		return edit{}, false, nil
	}
	testing := importName(file, "testing")
	if testing == "" || testing == "_" || testing == "." {
		return edit{}, false, nil
	}
	out := in.content
	var names []string
	// Later functions first, so that earlier offsets stay valid.
	for i := len(wanted) - 1; i >= 0; i-- {
		m := reTestSignature.FindStringSubmatch(wanted[i].Message)
		fn := funcNamed(file, m[1])
		if fn == nil || fn.Type.Results != nil || fn.Type.TypeParams != nil || fn.Body == nil {
			continue
		}
		params, ok := wantedParams(fn, m[3], testing+"."+m[4], testing)
		if !ok {
			continue
		}
		from, to := fset.Position(fn.Type.Params.Opening).Offset, fset.Position(fn.Type.Params.Closing).Offset+1
		if from < 0 || to > len(out) || from >= to {
			continue
		}
		out = out[:from] + "(" + params + ")" + out[to:]
		names = append(names, m[1])
	}
	if len(names) == 0 || out == in.content {
		return edit{}, false, nil
	}
	return edit{content: out, reason: "give " + strings.Join(names, ", ") + " the signature go test requires", confidence: 0.85}, true, nil
}

// wantedParams returns the parameter list fn must have, when it can be
// reached without touching the body.
func wantedParams(fn *ast.FuncDecl, name, typ, testing string) (string, bool) {
	fields := fn.Type.Params.List
	if len(fields) == 0 {
		return name + " *" + typ, true
	}
	first := fields[0]
	if !isTestingType(first.Type, testing, typ) {
		return "", false
	}
	pname := name
	if len(first.Names) > 0 {
		pname = first.Names[0].Name
	}
	var extra []string
	for i, f := range fields {
		for j, n := range f.Names {
			if i == 0 && j == 0 {
				continue
			}
			extra = append(extra, n.Name)
		}
	}
	for _, n := range extra {
		if n != "_" && usesName(fn.Body, n) {
			return "", false
		}
	}
	return pname + " *" + typ, true
}

// isTestingType reports whether e is testing.X or *testing.X.
func isTestingType(e ast.Expr, testing, typ string) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name+"."+sel.Sel.Name == typ && pkg.Name == testing
}

func usesName(body *ast.BlockStmt, name string) bool {
	used := false
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			used = true
		}
		return !used
	})
	return used
}

func funcNamed(file *ast.File, name string) *ast.FuncDecl {
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
			return fn
		}
	}
	return nil
}

// importName is the name the file gives an import path, "" when it does
// not import it.
func importName(file *ast.File, path string) string {
	for _, is := range file.Imports {
		if importPath(is) != path {
			continue
		}
		if is.Name != nil {
			return is.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

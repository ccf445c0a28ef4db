package aidercall

import (
	_ "embed"
	"go/ast"
	"go/constant"
	"go/types"
	"path"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// Config names the packages and program the analyzer knows about.
type Config struct {
	// Adapter is the import path of the tool adapter, where aider may run
	// and results may be built (its subpackages too).
	Adapter string
	// Contract is the import path of the contract types.
	Contract string
	// Sandbox is the import path of salve's subprocess helper.
	Sandbox string
	// Tool is the program that must only run through the adapter.
	Tool string
}

// DefaultConfig is salve's own layout.
func DefaultConfig() Config {
	return Config{
		Adapter:  "github.com/salve-dev/salve/toolrun",
		Contract: "github.com/salve-dev/salve/contract",
		Sandbox:  "github.com/salve-dev/salve/sandbox",
		Tool:     "aider",
	}
}

// Analyzer is the aidercall analyzer with DefaultConfig, changeable through
// its flags.
var Analyzer = New(DefaultConfig())

// New returns an analyzer for cfg. Its flags write into its own copy of cfg.
func New(cfg Config) *analysis.Analyzer {
	c := &cfg
	a := &analysis.Analyzer{
		Name:     "aidercall",
		Doc:      analyzerDoc(),
		Requires: []*analysis.Analyzer{inspect.Analyzer},
		Run:      c.run,
	}
	a.Flags.StringVar(&c.Adapter, "adapter", c.Adapter, "import path of the tool adapter package")
	a.Flags.StringVar(&c.Contract, "contract", c.Contract, "import path of the contract package")
	a.Flags.StringVar(&c.Sandbox, "sandbox", c.Sandbox, "import path of the sandbox package")
	a.Flags.StringVar(&c.Tool, "tool", c.Tool, "program that must run only through the adapter")
	return a
}

//go:embed doc.go
var docSource string

// analyzerDoc takes the text under "# Analyzer aidercall" from doc.go, so
// godoc and -help say the same.
func analyzerDoc() string {
	var lines []string
	in := false
	for _, l := range strings.Split(docSource, "\n") {
		if !strings.HasPrefix(l, "//") {
			continue
		}
		l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), " ")
		if strings.HasPrefix(l, "# Analyzer") {
			in = true
			continue
		}
		if in {
			lines = append(lines, l)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// programArg maps a function that starts a process to the index of its
// program argument.
var programArg = map[string]int{
	"os/exec.Command":        0,
	"os/exec.CommandContext": 1,
	"os.StartProcess":        0,
	"syscall.Exec":           0,
	"syscall.ForkExec":       0,
}

func within(pkg, root string) bool {
	pkg = strings.TrimSuffix(pkg, "_test")
	return pkg == root || strings.HasPrefix(pkg, root+"/")
}

func (c *Config) run(pass *analysis.Pass) (any, error) {
	inAdapter := within(pass.Pkg.Path(), c.Adapter)
	inContract := within(pass.Pkg.Path(), c.Contract)
	if inAdapter {
		return nil, nil
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	filter := []ast.Node{(*ast.CallExpr)(nil), (*ast.CompositeLit)(nil), (*ast.AssignStmt)(nil)}
	ins.Preorder(filter, func(n ast.Node) {
		if strings.HasSuffix(pass.Fset.File(n.Pos()).Name(), "_test.go") {
			return
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			c.checkCall(pass, n)
		case *ast.CompositeLit:
			c.checkCmdLit(pass, n)
			if !inContract {
				c.checkResultLit(pass, n)
			}
		case *ast.AssignStmt:
			c.checkPathAssign(pass, n)
		}
	})
	return nil, nil
}

// isTool reports whether e is a constant naming the tool.
func (c *Config) isTool(pass *analysis.Pass, e ast.Expr) bool {
	tv, ok := pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return false
	}
	return path.Base(constant.StringVal(tv.Value)) == c.Tool
}

func (c *Config) checkCall(pass *analysis.Pass, call *ast.CallExpr) {
	fn, ok := typeutil.Callee(pass.TypesInfo, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return
	}
	name := fn.Pkg().Path() + "." + fn.Name()
	i, ok := programArg[name]
	if !ok || i >= len(call.Args) || !c.isTool(pass, call.Args[i]) {
		return
	}
	pass.ReportRangef(call, "%s started with %s.%s outside %s: run it through the tool adapter (toolrun.RunAider)",
		c.Tool, path.Base(fn.Pkg().Path()), fn.Name(), c.Adapter)
}

// isCmdType reports whether t is (a pointer to) sandbox.Cmd or exec.Cmd.
func (c *Config) isCmdType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Name() != "Cmd" {
		return false
	}
	pkg := named.Obj().Pkg().Path()
	return pkg == c.Sandbox || pkg == "os/exec"
}

func (c *Config) checkCmdLit(pass *analysis.Pass, lit *ast.CompositeLit) {
	if !c.isCmdType(pass.TypesInfo.TypeOf(lit)) {
		return
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Path" && c.isTool(pass, kv.Value) {
			pass.ReportRangef(kv, "%s started through a Cmd literal outside %s: run it through the tool adapter (toolrun.RunAider)", c.Tool, c.Adapter)
		}
	}
}

func (c *Config) checkPathAssign(pass *analysis.Pass, as *ast.AssignStmt) {
	if len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, lhs := range as.Lhs {
		sel, ok := lhs.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Path" || !c.isCmdType(pass.TypesInfo.TypeOf(sel.X)) || !c.isTool(pass, as.Rhs[i]) {
			continue
		}
		pass.ReportRangef(as, "%s set as a Cmd's Path outside %s: run it through the tool adapter (toolrun.RunAider)", c.Tool, c.Adapter)
	}
}

func (c *Config) checkResultLit(pass *analysis.Pass, lit *ast.CompositeLit) {
	named, ok := types.Unalias(pass.TypesInfo.TypeOf(lit)).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return
	}
	if named.Obj().Pkg().Path() != c.Contract || named.Obj().Name() != "ToolRunResultV1" {
		return
	}
	pass.ReportRangef(lit, "contract.ToolRunResultV1 built outside %s: only the tool adapter makes tool results", c.Adapter)
}

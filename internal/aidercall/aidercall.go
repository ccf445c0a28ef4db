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
	// Tool lists the programs that must only run through the adapter,
	// separated by commas.
	Tool string
}

// DefaultConfig is salve's own layout.
func DefaultConfig() Config {
	return Config{
		Adapter:  "github.com/salve-dev/salve/internal/toolrun",
		Contract: "github.com/salve-dev/salve/contract",
		Sandbox:  "github.com/salve-dev/salve/internal/sandbox",
		Tool:     "aider,claude",
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
	a.Flags.StringVar(&c.Tool, "tool", c.Tool, "programs that must run only through the adapter, separated by commas")
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

// toolNamed returns the tool a program name or path runs, or "".
func (c *Config) toolNamed(program string) string {
	base := path.Base(program)
	for _, t := range strings.Split(c.Tool, ",") {
		if t = strings.TrimSpace(t); t != "" && base == t {
			return t
		}
	}
	return ""
}

// isTool returns the tool e names when e is a constant naming one, or "".
func (c *Config) isTool(pass *analysis.Pass, e ast.Expr) string {
	tv, ok := pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return ""
	}
	return c.toolNamed(constant.StringVal(tv.Value))
}

func (c *Config) checkCall(pass *analysis.Pass, call *ast.CallExpr) {
	fn, ok := typeutil.Callee(pass.TypesInfo, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return
	}
	name := fn.Pkg().Path() + "." + fn.Name()
	i, ok := programArg[name]
	if !ok || i >= len(call.Args) {
		return
	}
	if tool := c.isTool(pass, call.Args[i]); tool != "" {
		pass.ReportRangef(call, "%s started with %s.%s outside %s: run it through the tool adapter (toolrun.RunAider)",
			tool, path.Base(fn.Pkg().Path()), fn.Name(), c.Adapter)
		return
	}
	if c.isShell(pass, call.Args[i]) {
		if tool := c.scriptRunsTool(pass, call.Args[i+1:]); tool != "" {
			pass.ReportRangef(call, "%s started through a shell with %s.%s outside %s: run it through the tool adapter (toolrun.RunAider)",
				tool, path.Base(fn.Pkg().Path()), fn.Name(), c.Adapter)
		}
	}
}

// shells are the programs whose "-c" script the analyzer reads.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true}

// isShell reports whether e is a constant naming a shell.
func (c *Config) isShell(pass *analysis.Pass, e ast.Expr) bool {
	tv, ok := pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return false
	}
	return shells[path.Base(constant.StringVal(tv.Value))]
}

// scriptRunsTool returns the tool that one of args, or of the elements of
// a []string literal among them, runs as a constant shell script ("aider
// --yes", "cd x && aider", "FOO=1 aider"), or "".
func (c *Config) scriptRunsTool(pass *analysis.Pass, args []ast.Expr) string {
	for _, a := range args {
		if lit, ok := a.(*ast.CompositeLit); ok {
			if tool := c.scriptRunsTool(pass, lit.Elts); tool != "" {
				return tool
			}
			continue
		}
		tv, ok := pass.TypesInfo.Types[a]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			continue
		}
		if tool := c.runsTool(constant.StringVal(tv.Value)); tool != "" {
			return tool
		}
	}
	return ""
}

// runsTool returns the tool a simple command of a shell script runs, or
// "".
func (c *Config) runsTool(script string) string {
	split := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n", "&", "\n", "(", "\n", ")", "\n", "`", "\n", "$(", "\n")
	for _, cmd := range strings.Split(split.Replace(script), "\n") {
		for _, word := range strings.Fields(cmd) {
			if strings.Contains(word, "=") && !strings.HasPrefix(word, "-") {
				continue // a variable assignment before the program
			}
			if word == "exec" || word == "command" || word == "nohup" || word == "env" {
				continue
			}
			if tool := c.toolNamed(strings.Trim(word, `"'`)); tool != "" {
				return tool
			}
			break
		}
	}
	return ""
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
	var shell ast.Expr
	var args []ast.Expr
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		id, ok := kv.Key.(*ast.Ident)
		switch {
		case !ok:
		case id.Name == "Path" && c.isTool(pass, kv.Value) != "":
			pass.ReportRangef(kv, "%s started through a Cmd literal outside %s: run it through the tool adapter (toolrun.RunAider)", c.isTool(pass, kv.Value), c.Adapter)
		case id.Name == "Path" && c.isShell(pass, kv.Value):
			shell = kv.Value
		case id.Name == "Args":
			args = append(args, kv.Value)
		}
	}
	if shell == nil {
		return
	}
	if tool := c.scriptRunsTool(pass, args); tool != "" {
		pass.ReportRangef(lit, "%s started through a shell in a Cmd literal outside %s: run it through the tool adapter (toolrun.RunAider)", tool, c.Adapter)
	}
}

func (c *Config) checkPathAssign(pass *analysis.Pass, as *ast.AssignStmt) {
	if len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, lhs := range as.Lhs {
		sel, ok := lhs.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Path" || !c.isCmdType(pass.TypesInfo.TypeOf(sel.X)) {
			continue
		}
		if tool := c.isTool(pass, as.Rhs[i]); tool != "" {
			pass.ReportRangef(as, "%s set as a Cmd's Path outside %s: run it through the tool adapter (toolrun.RunAider)", tool, c.Adapter)
		}
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

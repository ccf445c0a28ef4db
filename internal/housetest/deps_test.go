// Package housetest checks the house rules that span the whole module.
package housetest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/salve-dev/salve"

type pkg struct {
	ImportPath string
	Deps       []string
	Standard   bool
}

// listPackages runs `go list -deps -json` over the module's packages.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Deps,Standard", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// isStd reports whether an import path belongs to the standard library: its
// first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// TestPureDependencies enforces that contract imports only the standard
// library, and logparse only that, contract, internal/lazyre and
// internal/ansi (house rule 1); lazyre and ansi, themselves standard
// library only, keep the parser's regular expressions from being compiled
// at every start and strip terminal escapes.
func TestPureDependencies(t *testing.T) {
	allowed := map[string][]string{
		module + "/contract":                nil,
		module + "/internal/lazyre":         nil,
		module + "/internal/ansi":           nil,
		module + "/internal/heal/logparse":  {module + "/contract", module + "/internal/lazyre", module + "/internal/ansi"},
		module + "/internal/lang":           {module + "/internal/lazyre"},
		module + "/internal/heal/integrity": {module + "/contract", module + "/internal/lazyre", module + "/internal/lang", module + "/internal/heal/missing"},
		module + "/internal/heal/missing":   {module + "/internal/lazyre"},
		module + "/internal/heal/undertest": nil,
		module + "/internal/heal/results":   {module + "/contract", module + "/internal/lazyre", module + "/internal/ansi", module + "/internal/heal/logparse"},
		// The shared policy tables: anything may import them.
		module + "/internal/heal/tiers": nil,
		module + "/internal/secret":     nil,
		module + "/internal/isolation":  nil,
		module + "/internal/statedir":   nil,
		module + "/internal/gitremote":  nil,
		module + "/internal/httpguard":  nil,
		module + "/internal/gitguard":   {module + "/internal/safefile"},
	}
	for _, p := range listPackages(t) {
		extra, ok := allowed[p.ImportPath]
		if !ok {
			continue
		}
		for _, d := range p.Deps {
			if isStd(d) || contains(extra, d) {
				continue
			}
			t.Errorf("%s depends on %s; it may import only the standard library%s", p.ImportPath, d, also(extra))
		}
	}
}

// TestNoImportOfCommands enforces that no package imports a cmd/ package.
func TestNoImportOfCommands(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, d := range p.Deps {
			if strings.HasPrefix(d, module+"/cmd/") {
				t.Errorf("%s imports %s; commands are leaves", p.ImportPath, d)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func also(extra []string) string {
	if len(extra) == 0 {
		return ""
	}
	return " and " + strings.Join(extra, ", ")
}

// TestDependencyDirection keeps the layers pointing one way. The
// read-only run viewer (and the heal results it reads) links none of the
// pipeline: no sandbox, executor, git agent, fixer tier or the heal
// orchestrator itself. The heal core links none of its adapters (package
// internal/heal/adapter plugs them in): no executor, git agent, run store
// or sandbox.
func TestDependencyDirection(t *testing.T) {
	viewer := []string{"internal/sandbox", "internal/heal/executor", "internal/gitagent", "internal/gitagent/server", "internal/heal",
		"internal/heal/rules", "internal/heal/suggest", "internal/heal/llmfix", "internal/heal/aiderfix", "internal/heal/target",
		"internal/toolrun", "internal/agent", "internal/llm"}
	core := []string{"internal/sandbox", "internal/heal/executor", "internal/gitagent", "internal/gitagent/server", "internal/store",
		"internal/heal/adapter"}
	forbidden := map[string][]string{
		module + "/internal/ui":           viewer,
		module + "/internal/heal/results": viewer,
		module + "/internal/heal":         core,
	}
	for _, p := range listPackages(t) {
		for _, d := range p.Deps {
			for _, f := range forbidden[p.ImportPath] {
				if d == module+"/"+f {
					t.Errorf("%s links %s", p.ImportPath, d)
				}
			}
		}
	}
}

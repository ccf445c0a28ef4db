package aidercall_test

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/salve-dev/salve/internal/aidercall"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), aidercall.Analyzer,
		"github.com/salve-dev/salve/fixture/a", "github.com/salve-dev/salve/fixture/clean", "github.com/salve-dev/salve/internal/toolrun", "github.com/salve-dev/salve/contract")
}

func TestDocMatchesPackageDoc(t *testing.T) {
	doc := aidercall.Analyzer.Doc
	if !strings.HasPrefix(doc, "aidercall: report aider started outside the tool adapter") || !strings.Contains(doc, "Test files") {
		t.Errorf("Doc = %q", doc)
	}
}

// TestOtherTool sets the -tool flag of a new analyzer to git: git is then
// reported and aider is not, and the package's Analyzer keeps watching
// aider and claude.
func TestOtherTool(t *testing.T) {
	a := aidercall.New(aidercall.DefaultConfig())
	if err := a.Flags.Set("tool", "git"); err != nil {
		t.Fatal(err)
	}
	if got := aidercall.Analyzer.Flags.Lookup("tool").Value.String(); got != "aider,claude" {
		t.Errorf("the package's Analyzer watches %q after another analyzer's flag was set", got)
	}
	analysistest.Run(t, analysistest.TestData(), a, "othertool")
}

package aidercall_test

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/salve-dev/salve/analysis/aidercall"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), aidercall.Analyzer,
		"a", "clean", "github.com/salve-dev/salve/toolrun", "github.com/salve-dev/salve/contract")
}

func TestDocMatchesPackageDoc(t *testing.T) {
	doc := aidercall.Analyzer.Doc
	if !strings.HasPrefix(doc, "aidercall: report aider started outside the tool adapter") || !strings.Contains(doc, "Test files") {
		t.Errorf("Doc = %q", doc)
	}
}

func TestOtherTool(t *testing.T) {
	cfg := aidercall.DefaultConfig()
	cfg.Tool = "git"
	a := aidercall.New(cfg)
	if err := a.Flags.Set("tool", "aider"); err != nil {
		t.Fatal(err)
	}
	// The flag changed this analyzer only.
	if aidercall.DefaultConfig().Tool != "aider" {
		t.Error("DefaultConfig changed")
	}
	analysistest.Run(t, analysistest.TestData(), a, "clean")
}

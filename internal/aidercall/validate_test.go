package aidercall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/aidercall"
)

// TestValidateRealPackages loads fixtures that import salve's real
// contract, sandbox and toolrun packages through the go command.
func TestValidateRealPackages(t *testing.T) {
	ctx := context.Background()
	findings, err := aidercall.Validate(ctx, ".", []string{"./testdata/validate/bad", "./testdata/validate/good"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"testdata/validate/bad/bad.go:15:38: aider started through a Cmd literal outside github.com/salve-dev/salve/internal/toolrun: run it through the tool adapter (toolrun.RunAider)",
		"testdata/validate/bad/bad.go:16:12: aider started with exec.CommandContext outside github.com/salve-dev/salve/internal/toolrun: run it through the tool adapter (toolrun.RunAider)",
		"testdata/validate/bad/bad.go:17:10: contract.ToolRunResultV1 built outside github.com/salve-dev/salve/internal/toolrun: only the tool adapter makes tool results",
		"testdata/validate/bad/bad.go:19:9: contract.ToolRunResultV1 built outside github.com/salve-dev/salve/internal/toolrun: only the tool adapter makes tool results",
	}
	var got []string
	for _, f := range findings {
		got = append(got, f.String())
		if f.Analyzer != "aidercall" {
			t.Errorf("analyzer %q", f.Analyzer)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := aidercall.Validate(ctx, ".", []string{"./testdata/validate/nope"}); err == nil {
		t.Error("a missing package validated")
	}
}

package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	sv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/report"
)

// sarifSchemaPath is where scripts/report/setup.sh puts the official SARIF
// 2.1.0 schema.
var sarifSchemaPath = filepath.Join("..", "..", "..", ".deps", "report", "sarif-schema-2.1.0.json")

// TestSARIFSchema validates the SARIF written for every real log of the
// golden set, and for hostile content, against the official schema.
func TestSARIFSchema(t *testing.T) {
	raw, err := os.ReadFile(sarifSchemaPath)
	if err != nil {
		t.Skipf("the SARIF 2.1.0 schema is not installed (run scripts/report/setup.sh): %v", err)
	}
	doc, err := sv.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := sv.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]contract.BugReport{"hostile": hostile(), "empty": nil}
	for _, name := range existingCases(t) {
		inputs[name] = corpusReports(t, name)
	}
	for name, reports := range inputs {
		out, _ := write(t, report.SARIF, reports)
		inst, err := sv.UnmarshalJSON(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: SARIF fails the schema: %v", name, err)
		}
	}
	// The check can fail: a log without the required version is refused.
	bad, _ := sv.UnmarshalJSON(bytes.NewReader([]byte(`{"runs":[]}`)))
	if schema.Validate(bad) == nil {
		t.Fatal("the schema accepted a log without a version")
	}
}

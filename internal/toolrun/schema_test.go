package toolrun_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun"
)

// checkSchema validates v, encoded as JSON, against the contract schema name.
func checkSchema(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := contract.Schema(name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///"+name+".json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(js)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not match its schema: %v\n%s", name, err, js)
	}
}

// TestOutputsMatchContractSchemas checks what the adapter and the router
// produce, for a success, a scope violation and a rejection, against the
// JSON Schemas of the contract.
func TestOutputsMatchContractSchemas(t *testing.T) {
	root := newWorkTree(t)
	runs := []contract.ToolRunRequestV1{
		aiderRequest(t, root, []string{"src/app.py"}, "write src/app.py x = 1"),
		aiderRequest(t, root, []string{"src/app.py"}, "append README.md no"),
		{},
	}
	for _, req := range runs {
		out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
		checkSchema(t, "ToolRunRequestV1", out.Record.Request)
		checkSchema(t, "ToolRunResultV1", out.Result)
		checkSchema(t, "RunRecordV1", out.Record)
		for _, ev := range out.Record.Events {
			checkSchema(t, "LogEventV1", ev)
		}
		for _, p := range out.Record.Patches {
			checkSchema(t, "PatchRecordV1", p)
		}
	}
}

package contract

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed schema/*.json
var schemaFS embed.FS

// SchemaTypes maps each schema name to a zero value of its Go type. The
// schema files under schema/ are generated from these types, and a test
// keeps the two in agreement.
var SchemaTypes = map[string]any{
	"ToolRunRequestV1":   ToolRunRequestV1{},
	"ToolRunResultV1":    ToolRunResultV1{},
	"LogEventV1":         LogEventV1{},
	"PatchRecordV1":      PatchRecordV1{},
	"RunRecordV1":        RunRecordV1{},
	"GitWorkspaceRefV1":  GitWorkspaceRefV1{},
	"ExecutionRequestV1": ExecutionRequestV1{},
	"ExecutionResultV1":  ExecutionResultV1{},
	"ExecutorInput":      ExecutorInput{},
	"ExecutorOutput":     ExecutorOutput{},
	"BugReport":          BugReport{},
	"FixRequest":         FixRequest{},
	"FixResult":          FixResult{},
	"ActionRequest":      ActionRequest{},
	"ActionResponse":     ActionResponse{},
	"ActionResult":       ActionResult{},
	"GitAgentRequestV1":  GitAgentRequestV1{},
	"GitAgentCommandV1":  GitAgentCommandV1{},
	"AIAgentResult":      AIAgentResult{},
	"FinalReport":        FinalReport{},
	"Message":            Message{},
	"AccountingEntry":    AccountingEntry{},
}

// SchemaNames returns the names of every schema, sorted.
func SchemaNames() []string {
	names := make([]string, 0, len(SchemaTypes))
	for n := range SchemaTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Schema returns the JSON Schema (draft 2020-12) of the named type, such as
// "ActionResponse". It returns an error for an unknown name.
func Schema(name string) ([]byte, error) {
	if _, ok := SchemaTypes[name]; !ok {
		return nil, fmt.Errorf("contract: no schema named %q (have %s)", name, strings.Join(SchemaNames(), ", "))
	}
	b, err := schemaFS.ReadFile("schema/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("contract: read schema %s: %w", name, err)
	}
	return b, nil
}

package toolrun

import "github.com/salve-dev/salve/contract"

// ExecutorRow is one row of the executor table: a name that patterns use
// in their "executor" key, and the operation kinds it serves.
type ExecutorRow struct {
	// Name is what PATTERN_INDEX.yaml's executor key says.
	Name string
	// Aliases are other accepted names (the contract's Python-style names).
	Aliases []string
	// Operations are the operation_kind values this executor serves.
	Operations []string
}

// ExecutorAiderEdit is the name of the aider edit executor.
const ExecutorAiderEdit = "toolrun.aider_edit"

// DefaultExecutors returns the executor table a pattern's executor key is
// checked against. EXEC-AIDER-EDIT is the aider edit executor
// (docs/contracts/tool-adapter.md §5.2), which also answers to the
// contract's example name "MINI_PIPE_executor.execute_aider_refactor".
func DefaultExecutors() []ExecutorRow {
	return []ExecutorRow{{
		Name:       ExecutorAiderEdit,
		Aliases:    []string{"MINI_PIPE_executor.execute_aider_refactor", "MINI_PIPE_executor.execute_aider_edit"},
		Operations: []string{contract.OperationAiderEdit},
	}}
}

// ExecutorNames lists every name and alias of rows, for [pattern.Load].
func ExecutorNames(rows []ExecutorRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Name)
		out = append(out, r.Aliases...)
	}
	return out
}

// Package contract is a stand-in for salve's contract package.
package contract

// ToolRunResultV1 mirrors the real type's shape.
type ToolRunResultV1 struct {
	ToolID   string
	ExitCode int
}

// Rejected may be built here: this is the contract package.
func Rejected() ToolRunResultV1 { return ToolRunResultV1{ToolID: "aider", ExitCode: -4} }

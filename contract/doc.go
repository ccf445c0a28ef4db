// Package contract holds every typed object that crosses a boundary in salve,
// with the exact JSON field names of the four seed contracts:
//
//   - seed 000, the tool adapter: [ToolRunRequestV1], [ToolRunResultV1],
//     [LogEventV1], [PatchRecordV1], [RunRecordV1], and the routing types
//     [ExecutionRequestV1], [GitWorkspaceRefV1], [ExecutionResultV1];
//   - seed 001, the execution pipeline: [ExecutorInput], [ExecutorOutput],
//     [BugReport], [FixRequest], [FixResult];
//   - seed 002, the git agent: [ActionRequest], [ActionResponse],
//     [ActionResult], [GitAgentCommandV1], [GitAgentRequestV1];
//   - seed 003, the agent runtime: [AIAgentResult], [FinalReport], [Message],
//     [AccountingEntry].
//
// The package holds data and the small rules that belong to the data (such as
// [ToolRunResultV1.Success] being derived from the exit code). It has no
// behaviour beyond that and imports only the standard library, so every other
// package may import it.
//
// # JSON Schemas
//
// Each top-level type has a JSON Schema, generated from the Go type and
// committed under schema/. [Schema] returns one by name and [SchemaNames] lists
// them. A test regenerates every schema from the types and fails when a
// committed file differs; `go test ./contract -update` rewrites them.
//
// # Time
//
// Timestamps in the seed objects are strings in RFC 3339 UTC with
// milliseconds; [Timestamp] formats one.
package contract

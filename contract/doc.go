// Package contract holds every typed object that crosses a boundary in salve,
// with the exact JSON field names of the contracts under docs/contracts/:
//
//   - the tool adapter (docs/contracts/tool-adapter.md): [ToolRunRequestV1],
//     [ToolRunResultV1], [LogEventV1], [PatchRecordV1], [RunRecordV1], and
//     the routing types [ExecutionRequestV1], [GitWorkspaceRefV1],
//     [ExecutionResultV1];
//   - the heal pipeline (docs/contracts/heal-pipeline.md): [ExecutorInput],
//     [ExecutorOutput], [BugReport], [FixRequest], [FixResult];
//   - the git agent (docs/contracts/git-agent.md): [ActionRequest],
//     [ActionResponse], [ActionResult], [GitAgentCommandV1],
//     [GitAgentRequestV1];
//   - the agent runtime (docs/contracts/ai-agent.md and
//     docs/contracts/ai-agent-cli.md): [AIAgentResult], [FinalReport],
//     [Message], [AccountingEntry].
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
// Timestamps in the contract objects are strings in RFC 3339 UTC with
// milliseconds; [Timestamp] formats one.
package contract

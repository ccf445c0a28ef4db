// Package gitagent is how salve runs git: through the git_agent binary
// (docs/contracts/git-agent.md), one child process per action, speaking the
// ActionRequest/ActionResponse contract. The heal pipeline commits only
// through its [Client].
//
// A [Client] sends canonical GitAgentRequestV1 payloads, starts git_agent
// through sandbox.Run with a timeout, validates every response against the
// ActionResponse JSON Schema (contract.Schema) before using it, checks that
// it answers the request sent, and returns typed results: text for
// Status/Diff/Log, commit hashes for Commit/AddCommit/Head, the branch name
// for CurrentBranch, and an [*ActionError] for an error response.
//
// What runs inside the binary (request decoding, the action table, path
// checks, the git command lines, the registry registration) is the
// subpackage agent.
package gitagent

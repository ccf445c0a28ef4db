// Package server is the inside of the git_agent binary
// (docs/contracts/git-agent.md): git actions over the git command line, the
// decoding of ActionRequests in both payload shapes, the building of
// ActionResponses, and the tool-registry registration. [Server] handles one
// request; cmd/git_agent only parses flags around it. The client side, which runs the binary and validates its
// responses, is the parent package gitagent; it is kept apart so the binary
// does not link (and initialise) the JSON Schema validator.
//
// # The request
//
// [Decode] reads one ActionRequest. The payload is either canonical, a
// GitAgentRequestV1 whose command.type must equal the action:
//
//	{"command": {"type": "git_log", "limit": 20}}
//
// or legacy (docs/contracts/git-agent.md §2.2), the command's fields
// directly in the payload, where git_log's limit may also be a string:
//
//	{"limit": "20"}    {"files": ["a.go"]}    {"message": "fix: typo"}
//
// Anything wrong (empty input, invalid JSON, two documents, an unknown
// action, a tool other than git_agent, a field of the wrong type, more than
// [MaxRequestBytes]) gives a [RequestError], whose Trace holds what could be
// read of the request so the error response still echoes request_id.
//
// # The actions
//
// git_status, git_diff, git_log, git_add and git_commit are the seed's; the
// v1 extensions git_branch, git_restore, git_push and git_rev_parse use the
// extension fields of contract.GitAgentCommandV1 (branch, start_point,
// create, remote, ref). [Actions] lists them and the action table in
// actions.go says, row by row, which fields each reads and which git
// command it becomes.
//
// # Safety
//
// git runs through sandbox.Run, never a shell, as "git -C <dir> …". Every
// pathspec follows "--" and --literal-pathspecs is set, so a file named
// "--output=x", "-rf" or ":(exclude)x" is only ever a path. Paths are
// checked against the work tree's root after symbolic links are resolved:
// "..", absolute paths elsewhere, links that lead out, and the .git
// directory are refused ([ErrPathRefused]). Branch names, revisions and
// remotes that could be read as options are refused while decoding.
//
// # The response
//
// [Respond] follows docs/contracts/git-agent.md §3: success gives status
// "success", code 0 and output_type "text" with git's stdout; failure gives
// status "error", code 1 and output_type "error" with git's stderr (or the
// agent's message) as data. The error field stays null. An error result's
// metadata carries error_kind (one of the Kind* constants) and, when git
// itself failed, exit_code.
package server

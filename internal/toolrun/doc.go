// Package toolrun is salve's one way to run an external coding tool such as
// aider (docs/contracts/tool-adapter.md, AIDER_CONTRACT_V1). A
// [contract.ToolRunRequestV1] goes in, a [contract.ToolRunResultV1] comes
// out; the adapter never panics and never returns a Go error for a tool
// failure. Every failure is an exit code: -1 timeout, -2 executable not
// found, -3 any other OS-level error, and salve's extensions: -4 for a
// request rejected before it ran (validation or a pattern's guardrails), -5
// for a run whose tool made an unsafe change (see [ExitUnsafeChange]). Known
// secret values are masked in everything a run returns or stores.
//
// # Steps of a run
//
//  1. Validate the request: a profile for tool_id (for [RunAider], tool_id
//     "aider"), cmd[0] equal to the profile's binary, an existing absolute
//     cwd, the profile's required flags present and its forbidden ones
//     absent, a file scope of relative paths inside the tree.
//  2. Enforce the pattern's guardrails, when a pattern is given:
//     allowed_tools, and path_scope include/exclude globs over the scope.
//  3. Snapshot the work tree (every file but .git and caches, bounded), and
//     what the git guard watches: the files of each git directory that can
//     make git run a program (config, hooks, info…), the .git entries, the
//     global git config; the targets of links leading out of the tree; the
//     dependency and bytecode-cache folders by metadata.
//  4. Run the tool through sandbox.Run: its own process group, the timeout
//     kills the whole group, output capped to head and tail, salve's
//     environment (or the scrubbed one on request) with the request's env
//     over it and the profile's forced variables (AIDER_NO_AUTO_COMMITS=1)
//     last. Salve is a child subreaper for the run and kills what the tool
//     left running once it exits. Then put back every change the git guard
//     sees, links out of the tree, writes through links, FIFOs, sockets
//     and devices, hard links to files outside the tree, files planted in
//     dependency folders and the tool's own config: each an ERROR event,
//     and the run fails with [ExitUnsafeChange] (-5). No revert opens what
//     the tool left at a path: it is removed or renamed over, so none can
//     block on a FIFO or write through a link.
//  5. Snapshot again. Every created, edited or deleted file becomes a
//     [contract.PatchRecordV1] with a unified diff that git apply accepts.
//     Changes outside the file scope are reverted to their pre-run content,
//     each revert an ERROR event, and the run's status is
//     "scope_violation".
//  6. Record the run: events, the tool run, patches and the
//     [contract.RunRecordV1] go to the run store when the [Adapter] has one.
//
// # Tools and patterns
//
// The tool table is [DefaultProfiles]: adding a tool is adding a
// [Profile] row. PATTERN_INDEX.yaml is loaded by [pattern.Load], which reports
// every unknown key, missing spec file or unknown executor (a name in
// [DefaultExecutors]) with its line; a run given a pattern has its
// guardrails enforced ([RunOptions.Pattern]).
package toolrun

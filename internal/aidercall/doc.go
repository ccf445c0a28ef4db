// Package aidercall defines an Analyzer that keeps every run of a coding
// tool (aider, Claude Code's claude) behind salve's tool adapter (docs/contracts/tool-adapter.md §5.3, §9 and §10).
//
// # Analyzer aidercall
//
// aidercall: report aider started outside the tool adapter, and tool
// results made outside it.
//
// Outside the adapter package (github.com/salve-dev/salve/internal/toolrun and its
// subpackages) it reports:
//
//   - a call of exec.Command, exec.CommandContext, os.StartProcess,
//     syscall.Exec or syscall.ForkExec whose program is "aider" or
//     "claude" (a literal, or any constant expression whose value is the
//     name or a path ending in /aider or /claude);
//   - a sandbox.Cmd or exec.Cmd literal whose Path is such a constant, and
//     an assignment of such a constant to the Path field of one;
//   - the same calls and literals when the program is a shell (sh, bash,
//     dash, zsh, ksh) and a constant argument is a script with a command
//     that runs one of them ("sh -c 'cd src && aider --yes'");
//   - outside the contract package too, any composite literal of
//     contract.ToolRunResultV1: only the adapter makes tool results, and
//     it never raises.
//
// Test files (_test.go) are not checked: tests build fixtures.
//
// The flags -adapter, -contract and -sandbox name the packages, and -tool
// the programs (separated by commas), for code bases laid out differently.
package aidercall

// Package guidetest holds the tests that keep the user guide (docs/guide)
// true: every fenced sh block of the guide is run, command by command,
// against the programs built from this checkout, in a throw-away git
// repository with local stand-ins for the model providers, the MCP server
// and the forge, so no example can fail unnoticed; and the one exit-code
// table of the guide is checked against each program's --help.
//
// A block that cannot run in a test carries the annotation
//
//	<!-- guide-test: skip REASON -->
//
// on the line before it, and the test reports it as skipped with REASON. A
// command of a block that is meant to exit non-zero is named, by the start
// of its text, in
//
//	<!-- guide-test: exit N: COMMAND -->
//
// (several such lines may precede a block); every other command must exit
// 0. The package has no code outside its tests.
package guidetest

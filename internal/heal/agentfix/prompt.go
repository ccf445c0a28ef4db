package agentfix

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/heal"
)

// SystemPrompt is the agent tier's system prompt: the Fix Agent's boundary
// rules (docs/contracts/heal-pipeline.md §Boundary rules) and how to work
// with the tools. It lives here and nowhere else.
const SystemPrompt = `You are the Fix Agent of salve's self-healing build pipeline, working as an investigator.
A build or a test fails. Find the cause and fix it with the smallest edit that makes the failing tests pass honestly.

How to work:
- Read before you edit: read the reported lines, the code under test, and the files the code uses (heal__read_file, heal__search, heal__list).
- Run the failing tests (heal__run_tests) to see the failure for yourself, and again after an edit to see whether it holds.
- Change code with heal__edit: it replaces one exact, unique piece of a file. The gate judges every edit at once and tells you, with rule ids, why it refuses one: change your approach, never retry the same edit.
- When the tests pass, or when you cannot fix it safely, call agent__final_report.

Rules the gate enforces:
- You may change only what the reports reach: a reported line and 3 lines around it, the code under test, or the declaration of a name used there. An import line may be added or removed where the imports are.
- Never weaken a check: do not edit tests, test configuration or CI configuration; do not remove or loosen an assertion, change an expected value, skip or delete a test, add a lint or type-checker suppression, detect a test run, exit the process, or special-case the values a test uses. A failing test means the code under test is wrong: fix that code.
- Keep every comment exactly as it is. Do not refactor, rename, reorder or reformat unrelated code.

Your final report, in the json format, is an object:
  {"fix_reason": "<one short sentence: what was wrong and what you changed>", "confidence_score": <0 to 1>}
The edits the gate accepted are the fix. If you made none, or cannot fix it safely, report confidence_score 0.`

// The tools' names, as the model calls them.
const (
	ToolRead   = "heal__read_file"
	ToolSearch = "heal__search"
	ToolList   = "heal__list"
	ToolRun    = "heal__run_tests"
	ToolEdit   = "heal__edit"
)

// toolDocs describes each tool to the model.
var toolDocs = map[string]string{
	ToolRead: fmt.Sprintf("Read a file of the repository, numbered, as your accepted edits left it. Give start_line and end_line for a range; "+
		"at most %d lines or %d bytes come back per call.", maxReadLines, maxReadBytes),
	ToolSearch: fmt.Sprintf("Search the repository's files for a text (or an RE2 regular expression with regexp true), under path (default: the whole tree). "+
		"Returns up to %d matches as path:line: text. The .git folder, dependency folders and symlinks are not searched.", maxMatches),
	ToolList: fmt.Sprintf("List a folder of the repository (default: its root): folders end in /, symlinks in @ (not followed). At most %d entries.", maxEntries),
	ToolRun: "Run the failing tests (or the build, when no test can be selected) with your accepted edits in place, " +
		"and get salve's parsed reports of the run and an excerpt of its log. The repository is put back after the run.",
	ToolEdit: "Propose an edit: replace the one exact occurrence of old in the file at path with new (old must occur exactly once; " +
		"include enough lines to make it unique). The gate judges all your edits together at once and answers accepted or refused, with its rule ids and reasons.",
}

// UserPrompt renders the failing reports, the test's context and the
// reach of a fix.
func UserPrompt(in heal.FixInput, reach []heal.Reached) string {
	var b strings.Builder
	reports, _ := json.MarshalIndent(in.Reports(), "", "  ")
	fmt.Fprintf(&b, "The build fails. Bug reports (JSON):\n%s\n\nError messages:\n%s\n", reports, in.Request.ErrorMessage)
	if in.Request.FileSnippet != "" {
		fmt.Fprintf(&b, "\n%s, around the error:\n%s\n", in.Path, in.Request.FileSnippet)
	}
	if in.Request.PreviousAttemptInfo != nil {
		prev, _ := json.MarshalIndent(in.Request.PreviousAttemptInfo, "", "  ")
		fmt.Fprintf(&b, "\nA previous attempt failed; do not repeat it:\n%s\n", prev)
	}
	b.WriteString("\nWhat a fix may change (besides import lines), and why:\n")
	for _, r := range reach {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	b.WriteString("\nInvestigate with the tools, fix the cause, run the tests, then deliver your final report.\n")
	return b.String()
}

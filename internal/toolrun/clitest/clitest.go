// Package clitest is test support for the coding CLIs the tool adapter
// runs: where the installed program is (or a skip naming the setup script
// that installs it), and Model, a scripted model behind an llmtest server
// that drives Claude Code through its own Read and Edit tools over the
// Anthropic messages wire. The model is a policy, not a recording: it
// reads the file the prompt names (under the working folder the CLI's
// system prompt states), picks its edit from what the Read result shows,
// and ends its turn once the CLI reports the edit.
package clitest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// SetupScript installs the coding CLIs (make setup runs it).
const SetupScript = "scripts/extcli/setup.sh"

// Claude returns the path of the claude program: from PATH, else the
// one scripts/extcli/setup.sh installs in the module's .deps/npm/bin. It
// skips the test when neither is there.
func Claude(tb testing.TB) string {
	tb.Helper()
	if p, err := exec.LookPath("claude"); err == nil {
		return p
	}
	if root, ok := moduleRoot(); ok {
		p := filepath.Join(root, ".deps", "npm", "bin", "claude")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	tb.Skipf("Claude Code is not installed (claude is not in PATH nor in .deps/npm/bin): run make setup, or bash %s", SetupScript)
	return ""
}

// moduleRoot is the folder of the go.mod above the working folder.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Mode is what the scripted model does with the task.
type Mode int

// The modes.
const (
	// Fix reads the file the prompt names and turns the subtraction of
	// its first return line into an addition.
	Fix Mode = iota
	// EditTest reads the failing test's file the prompt's bug reports
	// name and changes the expected value the failure message states to
	// the value the code returned: it weakens the test.
	EditTest
	// EditOutside reads the prompt's file, then edits go.mod, a file no
	// task gave it.
	EditOutside
)

// Model is the scripted model. It is safe for concurrent use.
type Model struct {
	Mode Mode

	mu    sync.Mutex
	calls []string
}

// Calls returns the tool calls the model made, as "Tool path", in order.
func (m *Model) Calls() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...)
}

// request is the part of an Anthropic messages request the model reads.
type request struct {
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// block is one content block of a message.
type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"is_error"`
}

var (
	cwdLine  = regexp.MustCompile(`(?m)(?:CWD|Working directory): *(/\S+)`)
	fileLine = regexp.MustCompile(`(?m)^File: *(\S+)`)
	testPath = regexp.MustCompile(`([\w./-]*(?:_test\.[a-z]+|test_\w+\.py))\b`)
	gotWant  = regexp.MustCompile(`= *(-?[0-9.]+), want (-?[0-9.]+)`)
	numbered = regexp.MustCompile(`^ *[0-9]+(?:\t|→)(.*)$`)
	minus    = regexp.MustCompile(`^(\s*return .+?) - (.+)$`)
)

// Answer implements an llmtest.Server handler for the Anthropic wire.
func (m *Model) Answer(r llmtest.Request) llmtest.Reply {
	var req request
	if err := r.Decode(&req); err != nil || len(req.Messages) == 0 {
		return llmtest.Reply{Text: "I cannot read this request."}
	}
	var all string
	for _, b := range blocksOf(req.System) {
		all += b.Text + "\n"
	}
	var first string
	var lastTool string
	var lastResult block
	for i, msg := range req.Messages {
		blocks := blocksOf(msg.Content)
		for _, b := range blocks {
			switch {
			case b.Type == "text" && i == 0:
				first += b.Text + "\n"
			case b.Type == "text":
				all += "\n" + b.Text
			case b.Type == "tool_use":
				lastTool = b.Name
			case b.Type == "tool_result":
				lastResult = b
			}
		}
	}
	all += "\n" + first
	cwd := match(cwdLine, all)
	file := match(fileLine, first)
	if cwd == "" || file == "" {
		return llmtest.Reply{Text: "The task names no file in a working folder I know."}
	}
	target := file
	if m.Mode == EditTest {
		if target = match(testPath, first); target == "" {
			return llmtest.Reply{Text: "No test is named."}
		}
	}
	abs := filepath.Join(cwd, filepath.FromSlash(target))
	switch {
	case lastTool == "":
		return m.call("Read", map[string]any{"file_path": abs})
	case lastTool == "Read" && lastResult.IsError:
		return llmtest.Reply{Text: "The file could not be read: " + resultText(lastResult)}
	case lastTool == "Read":
		return m.edit(abs, cwd, resultText(lastResult), first)
	case lastTool == "Edit" && lastResult.IsError:
		return llmtest.Reply{Text: "My edit was refused: " + resultText(lastResult)}
	}
	return llmtest.Reply{Text: "Done: the edit is in place."}
}

// edit picks the edit from the content the Read tool returned.
func (m *Model) edit(abs, cwd, read, prompt string) llmtest.Reply {
	var lines []string
	for _, l := range strings.Split(read, "\n") {
		if mm := numbered.FindStringSubmatch(l); mm != nil {
			lines = append(lines, mm[1])
		}
	}
	switch m.Mode {
	case EditTest:
		gw := gotWant.FindStringSubmatch(prompt)
		if gw == nil {
			return llmtest.Reply{Text: "The failure states no expected value."}
		}
		for _, l := range lines {
			if strings.Contains(l, gw[2]) && !strings.Contains(l, "want") {
				return m.call("Edit", map[string]any{"file_path": abs, "old_string": l, "new_string": strings.Replace(l, gw[2], gw[1], 1)})
			}
		}
		return llmtest.Reply{Text: "The expected value is not in the test."}
	case EditOutside:
		return m.call("Edit", map[string]any{"file_path": filepath.Join(cwd, "go.mod"), "old_string": "go 1.", "new_string": "go 1.99 // "})
	}
	for _, l := range lines {
		if mm := minus.FindStringSubmatch(l); mm != nil {
			return m.call("Edit", map[string]any{"file_path": abs, "old_string": l, "new_string": mm[1] + " + " + mm[2]})
		}
	}
	return llmtest.Reply{Text: "I see no slip to fix in " + abs}
}

// call answers with one tool call and records it.
func (m *Model) call(tool string, input map[string]any) llmtest.Reply {
	args, _ := json.Marshal(input)
	m.mu.Lock()
	m.calls = append(m.calls, fmt.Sprintf("%s %v", tool, input["file_path"]))
	n := len(m.calls)
	m.mu.Unlock()
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("toolu_clitest_%d", n), Name: tool, Arguments: string(args)}}}
}

// blocksOf reads a message's content: a string or a list of blocks.
func blocksOf(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// resultText is the text of a tool result: a string or text blocks.
func resultText(b block) string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []block
	_ = json.Unmarshal(b.Content, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n")
}

func match(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

package agentfix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/safefile"
)

// Bounds of the tools' answers.
const (
	maxReadLines   = 300
	maxReadBytes   = 10 << 10
	maxMatches     = 60
	maxMatchLine   = 200
	maxSearchFiles = 3000
	maxSearchSize  = 1 << 20
	maxEntries     = 300
	maxReports     = 30
	maxArgsShown   = 600
	maxResultShown = 1500
	maxPatternLen  = 256
)

// workspace is the in-process tool provider of one investigation: its
// tools read the heal's worktree (through the workbench's checks) and the
// edits the gate accepted so far, run the failing tests through the
// workbench, and propose edits to the gate. Nothing it does writes a file;
// only the workbench's trial does, and puts the files back.
type workspace struct {
	root  string
	bench heal.Workbench
	watch *watch
	// max is the tool-call budget; cancel ends the session when it runs
	// out.
	max    int
	cancel context.CancelCauseFunc

	calls atomic.Int64

	mu      sync.Mutex
	pending map[string]string // accepted edits: path → whole new content
	order   []string          // paths in the order first edited
	steps   []results.AgentStep
	edits   int
	refused int
	trials  int
}

var _ tools.Provider = (*workspace)(nil)

// Tools lists the tier's tools with their input schemas.
func (w *workspace) Tools() []tools.Tool {
	mk := func(name, schema string) tools.Tool {
		return tools.Tool{Name: name, LocalName: strings.TrimPrefix(name, "heal__"), Server: "heal", Kind: tools.KindInProcess,
			Description: toolDocs[name], InputSchema: json.RawMessage(schema)}
	}
	return []tools.Tool{
		mk(ToolRead, `{"type":"object","properties":{"path":{"type":"string"},"start_line":{"type":"integer","minimum":1},"end_line":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`),
		mk(ToolSearch, `{"type":"object","properties":{"pattern":{"type":"string","minLength":1,"maxLength":256},"path":{"type":"string"},"regexp":{"type":"boolean"}},"required":["pattern"],"additionalProperties":false}`),
		mk(ToolList, `{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`),
		mk(ToolRun, `{"type":"object","properties":{},"additionalProperties":false}`),
		mk(ToolEdit, `{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string","minLength":1},"new":{"type":"string"}},"required":["path","old","new"],"additionalProperties":false}`),
	}
}

// Close implements tools.Provider; there is nothing to release.
func (w *workspace) Close() error { return nil }

// errUnknownTool is returned for a name the provider does not have.
var errUnknownTool = errors.New("unknown tool")

// Call runs one tool. A refusal (a bad path, an edit the gate turns down,
// a budget that ran out) is a result marked IsError, which the model
// reads; the error is for calls that could not run at all.
func (w *workspace) Call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	step := results.AgentStep{Turn: w.watch.current(), Kind: results.StepTool, Tool: name, Args: bound(string(args), maxArgsShown)}
	if n := w.calls.Add(1); int(n) > w.max {
		w.cancel(&budgetError{name: BudgetToolCalls, detail: fmt.Sprintf("%d tool calls allowed", w.max)})
		res := tools.Result{Text: fmt.Sprintf("the %s budget ran out: %d calls allowed", BudgetToolCalls, w.max), IsError: true}
		w.record(step, res)
		return res, nil
	}
	var res tools.Result
	var err error
	switch name {
	case ToolRead:
		res, err = w.read(args)
	case ToolSearch:
		res, err = w.search(ctx, args)
	case ToolList:
		res, err = w.list(args)
	case ToolRun:
		res, err = w.run(ctx)
	case ToolEdit:
		res, step, err = w.edit(args, step)
	default:
		err = fmt.Errorf("%w %q", errUnknownTool, name)
	}
	if err != nil {
		res = tools.Result{Text: err.Error(), IsError: true}
	}
	w.record(step, res)
	return res, nil
}

// record appends a tool step to the transcript.
func (w *workspace) record(step results.AgentStep, res tools.Result) {
	step.Result, step.ResultBytes = bound(res.Text, maxResultShown), len(res.Text)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.steps = append(w.steps, step)
}

// content is a file as the model sees it: its accepted edit, else the
// file as the heal found it.
func (w *workspace) content(p string) (string, string, error) {
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	w.mu.Lock()
	c, ok := w.pending[clean]
	w.mu.Unlock()
	if ok {
		return clean, c, nil
	}
	c, err := w.bench.Original(clean)
	return clean, c, err
}

func (w *workspace) read(args json.RawMessage) (tools.Result, error) {
	var in struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Result{}, fmt.Errorf("read_file: %w", err)
	}
	p, c, err := w.content(in.Path)
	if err != nil {
		return tools.Result{}, fmt.Errorf("read_file %s: %w", in.Path, err)
	}
	lines := strings.Split(strings.TrimSuffix(c, "\n"), "\n")
	from, to := max(1, in.StartLine), in.EndLine
	if to <= 0 || to > len(lines) {
		to = len(lines)
	}
	if to-from+1 > maxReadLines {
		to = from + maxReadLines - 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, lines %d-%d of %d:\n", p, from, to, len(lines))
	for i := from; i <= to && i <= len(lines); i++ {
		line := fmt.Sprintf("%5d | %s\n", i, lines[i-1])
		if b.Len()+len(line) > maxReadBytes {
			fmt.Fprintf(&b, "… (stopped at %d bytes; read from line %d on)\n", maxReadBytes, i)
			break
		}
		b.WriteString(line)
	}
	return tools.Result{Text: b.String()}, nil
}

// folder checks a folder path the model names: inside the workspace after
// symlinks, not .git, a folder. "" and "." are the root.
func (w *workspace) folder(p string) (string, string, error) {
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if clean == "." || clean == "" || clean == "/" {
		return ".", w.root, nil
	}
	for _, part := range strings.Split(clean, "/") {
		if part == ".git" {
			return "", "", fmt.Errorf("%s: the .git folder is not part of the code", p)
		}
	}
	abs, err := heal.Confine(w.root, clean)
	if err != nil {
		return "", "", err
	}
	st, err := os.Lstat(abs)
	if err != nil {
		return "", "", err
	}
	if !st.IsDir() {
		return "", "", fmt.Errorf("%s is not a folder", p)
	}
	return clean, abs, nil
}

func (w *workspace) list(args json.RawMessage) (tools.Result, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Result{}, fmt.Errorf("list: %w", err)
	}
	rel, abs, err := w.folder(in.Path)
	if err != nil {
		return tools.Result{}, fmt.Errorf("list %s: %w", in.Path, err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return tools.Result{}, fmt.Errorf("list %s: %w", in.Path, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", rel)
	n := 0
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if n++; n > maxEntries {
			fmt.Fprintf(&b, "… and %d more\n", len(entries)-maxEntries)
			break
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			fmt.Fprintf(&b, "%s@\n", e.Name())
		case e.IsDir():
			fmt.Fprintf(&b, "%s/\n", e.Name())
		default:
			b.WriteString(e.Name() + "\n")
		}
	}
	return tools.Result{Text: b.String()}, nil
}

func (w *workspace) search(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var in struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Regexp  bool   `json:"regexp"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Result{}, fmt.Errorf("search: %w", err)
	}
	if in.Pattern == "" || len(in.Pattern) > maxPatternLen {
		return tools.Result{}, fmt.Errorf("search: the pattern must be 1 to %d bytes", maxPatternLen)
	}
	expr := regexp.QuoteMeta(in.Pattern)
	if in.Regexp {
		expr = in.Pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return tools.Result{}, fmt.Errorf("search: %w", err)
	}
	_, abs, err := w.folder(in.Path)
	if err != nil {
		return tools.Result{}, fmt.Errorf("search %s: %w", in.Path, err)
	}
	var matches []string
	files, truncated := 0, false
	_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != abs && heal.SkipFolder(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if files++; files > maxSearchFiles || len(matches) >= maxMatches {
			truncated = true
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(w.root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		_, c, err := w.searchable(p, rel)
		if err != nil {
			return nil
		}
		for i, line := range strings.Split(c, "\n") {
			if re.MatchString(line) {
				matches = append(matches, fmt.Sprintf("%s:%d: %s", rel, i+1, bound(strings.TrimSpace(line), maxMatchLine)))
				if len(matches) >= maxMatches {
					truncated = true
					break
				}
			}
		}
		return nil
	})
	sort.Strings(matches)
	out := strings.Join(matches, "\n")
	switch {
	case len(matches) == 0:
		out = "no match"
	case truncated:
		out += fmt.Sprintf("\n… (stopped at %d matches or %d files)", maxMatches, maxSearchFiles)
	}
	return tools.Result{Text: out}, nil
}

// searchable returns a file's text for search: its accepted edit, else
// the file when it is small and not binary.
func (w *workspace) searchable(abs, rel string) (string, string, error) {
	w.mu.Lock()
	c, ok := w.pending[rel]
	w.mu.Unlock()
	if ok {
		return rel, c, nil
	}
	b, err := safefile.Read(abs, maxSearchSize)
	if err != nil {
		return "", "", err
	}
	if strings.IndexByte(string(b[:min(len(b), 8000)]), 0) >= 0 {
		return "", "", fmt.Errorf("%s is binary", rel)
	}
	return rel, string(b), nil
}

// edits returns the accepted edits, in the order first made.
func (w *workspace) accepted() []heal.Edit {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]heal.Edit, 0, len(w.order))
	for _, p := range w.order {
		out = append(out, heal.Edit{Path: p, Content: w.pending[p]})
	}
	return out
}

func (w *workspace) run(ctx context.Context) (tools.Result, error) {
	t, err := w.bench.Try(ctx, w.accepted())
	w.mu.Lock()
	w.trials++
	w.mu.Unlock()
	if err != nil {
		return tools.Result{}, fmt.Errorf("run_tests: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "command: %s\nexit code: %d", t.Command, t.ExitCode)
	if t.TimedOut {
		b.WriteString(" (timed out)")
	}
	if t.ExitCode == 0 && !t.TimedOut {
		b.WriteString(" (passed)")
	}
	fmt.Fprintf(&b, "\nreports (%d):\n", len(t.Reports))
	for i, r := range t.Reports {
		if i == maxReports {
			fmt.Fprintf(&b, "… and %d more\n", len(t.Reports)-i)
			break
		}
		test := ""
		if r.TestName != nil && *r.TestName != "" {
			test = " [" + *r.TestName + "]"
		}
		fmt.Fprintf(&b, "- %s:%d: %s%s: %s\n", r.FilePath, r.LineNumber, r.ErrorType, test, firstLine(r.Message))
	}
	if t.Environment != "" {
		fmt.Fprintf(&b, "the parser blames the environment: %s\n", t.Environment)
	}
	fmt.Fprintf(&b, "log excerpt:\n%s", t.Excerpt)
	return tools.Result{Text: b.String()}, nil
}

func (w *workspace) edit(args json.RawMessage, step results.AgentStep) (tools.Result, results.AgentStep, error) {
	var in struct {
		Path string `json:"path"`
		Old  string `json:"old"`
		New  string `json:"new"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Result{}, step, fmt.Errorf("edit: %w", err)
	}
	p, c, err := w.content(in.Path)
	if err != nil {
		return tools.Result{}, step, fmt.Errorf("edit %s: %w", in.Path, err)
	}
	if in.Old == "" {
		return tools.Result{}, step, fmt.Errorf("edit %s: old is empty", p)
	}
	switch n := strings.Count(c, in.Old); n {
	case 1:
	case 0:
		return tools.Result{}, step, fmt.Errorf("edit %s: old does not occur in the file (read it again: it may hold your earlier edits)", p)
	default:
		return tools.Result{}, step, fmt.Errorf("edit %s: old occurs %d times; include more lines to make it unique", p, n)
	}
	next := strings.Replace(c, in.Old, in.New, 1)
	if orig, err := w.bench.Original(p); err == nil && orig == next {
		w.mu.Lock()
		delete(w.pending, p)
		w.order = slices.DeleteFunc(w.order, func(q string) bool { return q == p })
		w.mu.Unlock()
		step.Verdict = "accepted"
		return tools.Result{Text: "accepted: " + p + " is back as it was; it is no longer part of the fix"}, step, nil
	}
	w.mu.Lock()
	candidate := make([]heal.Edit, 0, len(w.order)+1)
	seen := false
	for _, q := range w.order {
		content := w.pending[q]
		if q == p {
			content, seen = next, true
		}
		candidate = append(candidate, heal.Edit{Path: q, Content: content})
	}
	if !seen {
		candidate = append(candidate, heal.Edit{Path: p, Content: next})
	}
	w.mu.Unlock()
	d := w.bench.Judge(candidate)
	if !d.Accepted {
		w.mu.Lock()
		w.refused++
		w.mu.Unlock()
		step.Verdict, step.Rules = "refused", d.Rules
		text := fmt.Sprintf("refused by the gate (rules: %s):\n- %s\nNothing was changed.", strings.Join(d.Rules, ", "), strings.Join(d.Reasons, "\n- "))
		return tools.Result{Text: text, IsError: true}, step, nil
	}
	w.mu.Lock()
	if !seen {
		w.order = append(w.order, p)
	}
	w.pending[p] = next
	w.edits++
	w.mu.Unlock()
	step.Verdict = "accepted"
	diff := ""
	for _, f := range d.Files {
		if f.Path == p {
			diff = f.Decision.Diff
		}
	}
	return tools.Result{Text: "accepted by the gate; " + p + " now differs from the original as:\n" + diff}, step, nil
}

// bound cuts s to n bytes, saying how much was left out.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

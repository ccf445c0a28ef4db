package heal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/heal/rerun"
	"github.com/salve-dev/salve/internal/heal/results"
)

// Investigator is a Fixer that investigates before it fixes (the agent
// tier): it is given a Workbench on the heal's worktree, reads what it
// needs, runs the failing tests, and answers with edits of one or more
// files. The heal gates the edits as one fix (GateEdits) and writes them;
// the investigator never writes a file and never commits. Outside a heal
// (salve fix) only its Fix method is called.
type Investigator interface {
	Fixer
	Investigate(ctx context.Context, in FixInput, bench Workbench) (Investigation, error)
}

// Investigation is an investigator's answer. On an error, Session may
// still say what the investigation did.
type Investigation struct {
	// Result carries the fix's reason and confidence (PatchedContent is
	// not read: Edits hold the fix).
	Result contract.FixResult
	// Edits are the files the fix changes, each with its whole new
	// content.
	Edits []Edit
	// Session is what the investigation spent and its transcript; nil
	// when it has none.
	Session *results.AgentSession
}

// Edit is one file's whole new content, as an investigator proposes it.
type Edit struct {
	// Path is repo-relative, with forward slashes.
	Path    string
	Content string
}

// Workbench is what the heal offers an investigator for one file group.
// Every path it is given is hostile: it is confined to the workspace, and
// a path through a symlink, into a .git folder or to something that is
// not a regular file is refused. It is safe for concurrent use.
type Workbench interface {
	// Reach returns the spans a fix of the group may change, each with
	// the report it is reached from.
	Reach() []Reached
	// Original returns a file of the workspace as the heal found it.
	Original(path string) (string, error)
	// Judge gates edits as one fix of the group (GateEdits, without the
	// confidence threshold), against the files as the heal found them.
	Judge(edits []Edit) EditsDecision
	// Try writes edits into the worktree (only when the gate accepts
	// them), runs the group's failing tests (or the build when no test
	// can be selected) through the heal's executor, parses the log, and
	// puts every file back. An error wrapping ErrEditRefused means nothing
	// ran; an edit the gate refuses is never written.
	Try(ctx context.Context, edits []Edit) (Trial, error)
}

// Trial is what one run of the failing tests showed.
type Trial struct {
	Command  string  `json:"command"`
	ExitCode int     `json:"exit_code"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Seconds  float64 `json:"seconds"`
	// Reports are the parser's reports of the run's log.
	Reports []contract.BugReport `json:"reports"`
	// Excerpt is the log's head and tail, bounded.
	Excerpt string `json:"excerpt"`
	// Environment, when set, says the parser blames the run's
	// environment, not the code.
	Environment string `json:"environment,omitempty"`
}

// ErrEditRefused is wrapped by Workbench.Try when the gate refuses the
// edits it was asked to try.
var ErrEditRefused = errors.New("the gate refused the edits")

// The gate's rule ids for a fix that spans files.
const (
	// RuleBadPath: an edit names a path outside the workspace, through a
	// symlink, into .git, or not a regular file.
	RuleBadPath = "bad-path"
	// RuleTooManyFiles: the fix changes more files than MaxEditFiles.
	RuleTooManyFiles = "too-many-files"
)

// MaxEditFiles bounds the files one fix may change.
const MaxEditFiles = 8

// FileFix is one file of a fix that spans files.
type FileFix struct {
	Path     string
	Original string
	Patched  string
	// Decision is the gate's verdict on this file alone.
	Decision GateDecision
}

// EditsDecision is the gate's verdict on a fix that spans files: the
// embedded decision is the whole fix's (every file's reasons, each
// naming its file, and all their diffs); Files are the changed files.
type EditsDecision struct {
	GateDecision
	Files []FileFix
}

// EditsInput is a fix that spans files, presented to the gate.
type EditsInput struct {
	// Files are the changed files (Original and Patched; Decision is
	// filled by the gate).
	Files []FileFix
	// Reach is what the fix may change beside the import lines.
	Reach []Reached
	// Reports are the group's reports; each file is judged with its own.
	Reports []contract.BugReport
	// Tests are the failing tests the fix answers (integrity.Input.Tests).
	Tests []integrity.TestSource
	// Confidence is checked against MinConfidence (zero checks nothing).
	Confidence, MinConfidence float64
	// AllowTestEdits, ProtectedPaths and Fixer are GateInput's.
	AllowTestEdits bool
	ProtectedPaths []string
	Fixer          string
}

// GateEdits enforces the fix gate on a fix that spans files: every
// changed hunk of every file must lie in the reach (a reported line ±3,
// the code under test, the declaration of a name a reported line uses),
// be an import line, or add a private helper only reached code calls;
// comments stay; and every integrity rule applies to every file. Files
// whose content does not change are left out.
func GateEdits(in EditsInput) EditsDecision {
	var d EditsDecision
	var diffs []string
	for _, f := range in.Files {
		if f.Original == f.Patched {
			continue
		}
		var reports []contract.BugReport
		for _, r := range in.Reports {
			if r.FilePath == f.Path {
				reports = append(reports, r)
			}
		}
		f.Decision = Gate(GateInput{Path: f.Path, Original: f.Original, Patched: f.Patched, Reports: reports, Confidence: 1,
			AllowTestEdits: in.AllowTestEdits, ProtectedPaths: in.ProtectedPaths, Fixer: in.Fixer, Windows: reachIn(in.Reach, f.Path), Tests: in.Tests})
		for _, reason := range f.Decision.Reasons {
			rule, text, _ := strings.Cut(reason, ": ")
			d.reject(rule, f.Path+": "+text)
		}
		diffs = append(diffs, f.Decision.Diff)
		d.Files = append(d.Files, f)
	}
	if len(d.Files) == 0 {
		d.reject(RuleNoChange, "the fix changes nothing")
	}
	if len(d.Files) > MaxEditFiles {
		d.reject(RuleTooManyFiles, fmt.Sprintf("the fix changes %d files; at most %d", len(d.Files), MaxEditFiles))
	}
	if in.Confidence < in.MinConfidence {
		d.reject(RuleLowConfidence, fmt.Sprintf("confidence %.2f is below the threshold %.2f", in.Confidence, in.MinConfidence))
	}
	d.Diff = strings.Join(diffs, "")
	d.Accepted = len(d.Reasons) == 0
	return d
}

// bench is the Workbench of one file group of one iteration.
type bench struct {
	r       *run
	iter    int
	in      FixInput
	group   []contract.BugReport
	reach   []Reached
	fixer   string
	command string

	omu  sync.Mutex
	orig map[string]string // the files as the heal found them

	mu     sync.Mutex // held by a trial
	broken error      // a trial could not put a file back
}

var _ Workbench = (*bench)(nil)

// newBench prepares the workbench of one group: its reach and the command
// its trials run (the failing tests alone where the runner can select
// them, else the build).
func (r *run) newBench(ctx context.Context, iter int, fixer string, in FixInput, group []contract.BugReport) *bench {
	command := r.o.Command
	if command == "" {
		command = r.cur.EnvironmentMetadata.ResolvedCommand
	}
	if plan := rerunPlan(command, r.cur, group); plan != "" {
		command = plan
	}
	return &bench{r: r, iter: iter, in: in, group: group, fixer: fixer, command: command,
		reach: computeReach(ctx, r.ws, r.o.Targets, in, group), orig: map[string]string{}}
}

func (b *bench) Reach() []Reached { return append([]Reached(nil), b.reach...) }

// Original reads a file of the workspace once, checked (see Workbench),
// and returns it as it was then.
func (b *bench) Original(p string) (string, error) {
	p, abs, err := checkEditPath(b.r.ws, p)
	if err != nil {
		return "", err
	}
	b.omu.Lock()
	defer b.omu.Unlock()
	if c, ok := b.orig[p]; ok {
		return c, nil
	}
	c, err := readSource(abs)
	if err != nil {
		return "", err
	}
	b.orig[p] = c
	return c, nil
}

// checkEditPath cleans a path an investigator names and checks it: inside
// the workspace after symlinks, through no symlink, no .git component, a
// regular file. It returns the clean relative path and the absolute one.
func checkEditPath(ws, p string) (string, string, error) {
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	for _, part := range strings.Split(clean, "/") {
		if part == ".git" {
			return "", "", fmt.Errorf("heal: %s: the .git folder is not part of the code: %w", p, ErrOutsideWorkspace)
		}
	}
	abs, err := confine(ws, clean)
	if err != nil {
		return "", "", err
	}
	st, err := os.Lstat(abs)
	if err != nil {
		return "", "", fmt.Errorf("heal: %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return "", "", fmt.Errorf("heal: %s is not a regular file (a link or a folder): %w", p, fs.ErrInvalid)
	}
	rws, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", "", fmt.Errorf("heal: resolve %s: %w", ws, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err != nil || real != filepath.Join(rws, filepath.FromSlash(clean)) {
		return "", "", fmt.Errorf("heal: %s goes through a symlink: %w", p, ErrOutsideWorkspace)
	}
	return clean, abs, nil
}

// files returns the edits as files of a fix, their originals read, or
// the refusal of the first path that fails its check.
func (b *bench) files(edits []Edit) ([]FileFix, *EditsDecision) {
	out := make([]FileFix, 0, len(edits))
	for _, e := range edits {
		orig, err := b.Original(e.Path)
		if err != nil {
			d := &EditsDecision{}
			d.reject(RuleBadPath, fmt.Sprintf("%s: %v", e.Path, err))
			return nil, d
		}
		p, _, _ := checkEditPath(b.r.ws, e.Path)
		out = append(out, FileFix{Path: p, Original: orig, Patched: e.Content})
	}
	return out, nil
}

func (b *bench) Judge(edits []Edit) EditsDecision {
	return b.judge(edits, 0, 0)
}

// judge gates edits with a confidence and its threshold.
func (b *bench) judge(edits []Edit, confidence, minConfidence float64) EditsDecision {
	files, refused := b.files(edits)
	if refused != nil {
		return *refused
	}
	return GateEdits(EditsInput{Files: files, Reach: b.reach, Reports: b.group, Tests: b.in.Tests, Confidence: confidence, MinConfidence: minConfidence,
		AllowTestEdits: b.r.o.AllowTestEdits, ProtectedPaths: b.r.protectedPaths(), Fixer: b.fixer})
}

// maxExcerpt bounds a trial's log excerpt: its head and its tail.
const (
	excerptHead = 1500
	excerptTail = 4500
)

func (b *bench) Try(ctx context.Context, edits []Edit) (Trial, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken != nil {
		return Trial{}, b.broken
	}
	var files []FileFix
	if len(edits) > 0 {
		d := b.Judge(edits)
		if !d.Accepted {
			return Trial{}, fmt.Errorf("%w: %s", ErrEditRefused, d.Reason())
		}
		files = d.Files
	}
	defer func() {
		for _, f := range files {
			abs, err := confine(b.r.ws, f.Path)
			if err == nil {
				err = writeFileKeepMode(abs, f.Original)
			}
			if err != nil && b.broken == nil {
				b.broken = fmt.Errorf("heal: put %s back after a trial: %w", f.Path, err)
			}
		}
	}()
	for _, f := range files {
		abs, err := confine(b.r.ws, f.Path)
		if err != nil {
			return Trial{}, err
		}
		if err := writeFileKeepMode(abs, f.Patched); err != nil {
			return Trial{}, err
		}
	}
	out, err := b.r.execute(ctx, b.iter, results.StageTrial, b.command)
	if err != nil {
		if ctx.Err() == nil {
			// The worktree's guard or the executor failed: the heal
			// cannot go on, whatever the investigator does next.
			b.broken = err
		}
		return Trial{}, err
	}
	t := Trial{Command: b.command, ExitCode: out.ExitCode, TimedOut: out.EnvironmentMetadata.TimedOut, Seconds: out.ExecutionTimeSeconds,
		Reports: b.r.o.Parser.Parse(out.BuildLog, b.r.ws), Excerpt: headTail(out.BuildLog, excerptHead, excerptTail)}
	if t.Command == "" {
		t.Command = out.EnvironmentMetadata.ResolvedCommand
	}
	if out.ExitCode != 0 || t.TimedOut {
		if env := b.r.o.Parser.Environment(out.BuildLog, out.ExitCode, t.TimedOut); env != nil {
			t.Environment = env.String()
		}
	}
	return t, nil
}

// rerunPlan returns the command that runs only group's failing tests,
// "" when the runner cannot select them (or no test failed).
func rerunPlan(command string, cur contract.ExecutorOutput, group []contract.BugReport) string {
	return rerun.For(command, cur.EnvironmentMetadata.ProjectType, group).Command
}

// err is what broke the worktree during the investigation, nil when
// nothing did.
func (b *bench) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.broken
}

// headTail returns s when it is short, else its first head bytes and its
// last tail bytes with a marker between.
func headTail(s string, head, tail int) string {
	if len(s) <= head+tail {
		return s
	}
	return s[:head] + fmt.Sprintf("\n… (%d bytes left out) …\n", len(s)-head-tail) + s[len(s)-tail:]
}

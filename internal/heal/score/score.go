// Package score measures `salve heal` on a corpus of broken projects, as a
// user would meet it: for each case it makes a throw-away git repository
// holding the broken tree, with a user's untracked, staged and unstaged
// files in it, runs the salve binary's heal there, and measures whether a
// fresh clone of the heal branch passes the case's command (healed), a
// claimed green that is not (false success), whether the user's checkout
// is byte-identical afterwards (untouched), whether every changed line is
// within ±3 lines of a planted defect (minimal), and the time taken.
//
// A case is a folder holding case.json (see [Case]) and tree/, the broken
// project, committed as the repository's HEAD. A case may also hold
// before/, the project as it was one commit earlier: it is then committed
// first and tree/ replaces it in a second commit, so that HEAD's own diff
// is the change that broke the build (a rename or a signature change the
// commit did not finish).
package score

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Classes of cases: what kind of slip is planted.
const (
	// ClassMechanical: a rule should fix it (imports, unused names,
	// semicolons, indentation, formatting).
	ClassMechanical = "mechanical"
	// ClassSuggestion: the toolchain's own hint names the fix.
	ClassSuggestion = "suggestion"
	// ClassHistory: the commit that broke the build did not finish its
	// own change (a rename, a new parameter); its diff shows the fix. The
	// case has a before/ tree.
	ClassHistory = "history"
	// ClassNeedsLLM: a logic bug; no deterministic tier can fix it.
	ClassNeedsLLM = "needs_llm"
	// ClassFlaky: a test that fails once and passes when re-run; nothing
	// is to be fixed.
	ClassFlaky = "flaky"
	// ClassControl: a control case (already green, or an environment
	// failure).
	ClassControl = "control"
)

// classes lists the classes in the order of the figures.
var classes = []string{ClassMechanical, ClassSuggestion, ClassHistory, ClassNeedsLLM, ClassFlaky, ClassControl}

// What a case expects of heal.
const (
	// ExpectHealed: heal commits a fix and the branch passes the command.
	ExpectHealed = "healed"
	// ExpectGreen: the build already passes; heal exits 0 and commits
	// nothing.
	ExpectGreen = "green"
	// ExpectEnvironment: the build fails because of its environment; heal
	// exits 3 and commits nothing.
	ExpectEnvironment = "environment"
	// ExpectFlaky: a test fails on the first run and passes when re-run;
	// heal says so (exit 5) and commits nothing.
	ExpectFlaky = "flaky"
	// ExpectRed: heal cannot fix the build and says so (exit 1), and
	// whatever it committed touches no test file. It is what a needs_llm
	// case expects when no LLM provider is configured ([Case.WithoutLLM]).
	ExpectRed = "red"
)

// expectations lists the valid values of Case.Expect.
var expectations = []string{ExpectHealed, ExpectGreen, ExpectEnvironment, ExpectFlaky, ExpectRed}

// exitFlaky is salve heal's exit status when every failure was a flaky
// test.
const exitFlaky = 5

// Case is one broken project of the corpus, read from case.json.
type Case struct {
	// Name is the case's folder name.
	Name string `json:"-"`
	// Dir is the case's folder.
	Dir string `json:"-"`
	// Language is the project's main language.
	Language string `json:"language"`
	// Class is mechanical, suggestion, needs_llm, flaky or control.
	Class string `json:"class"`
	// Command is the shell command that must pass once healed.
	Command string `json:"command"`
	// Expect is healed, green, environment, flaky or red.
	Expect string `json:"expect"`
	// WithoutLLM, when set, is what the case expects instead of Expect
	// when no LLM provider is configured (red, for a logic bug).
	WithoutLLM string `json:"without_llm,omitempty"`
	// TestsEditable says a heal may change test files (the planted slip is
	// in a test). Otherwise a heal that exits 0 with a commit touching a
	// test file is a false success: it made the tests pass by changing
	// them.
	TestsEditable bool `json:"tests_editable,omitempty"`
	// Tools are the programs the command needs; a case whose tool is
	// missing is skipped.
	Tools []string `json:"tools"`
	// Defects are the planted slips, with their lines in tree/.
	Defects []Defect `json:"defects"`
}

// Defect is one planted slip.
type Defect struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Slip string `json:"slip"`
}

// TreeFile returns the path in dir's tree/ of the repository file rel: a
// deliberately unformatted Go file is kept there as rel plus ".input".
func TreeFile(dir, rel string) string {
	p := filepath.Join(dir, "tree", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if _, ierr := os.Stat(p + ".input"); ierr == nil {
			return p + ".input"
		}
	}
	return p
}

// Load reads every case under dir (each subfolder holding case.json), in
// name order.
func Load(dir string) ([]Case, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("score: read corpus %s: %w", dir, err)
	}
	var out []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := LoadCase(filepath.Join(dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("score: no case (a folder with case.json) in %s", dir)
	}
	return out, nil
}

// LoadCase reads one case folder and checks it.
func LoadCase(dir string) (Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return Case{}, err
	}
	var c Case
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("score: %s/case.json: %w", dir, err)
	}
	c.Name, c.Dir = filepath.Base(dir), dir
	if err := c.check(); err != nil {
		return Case{}, fmt.Errorf("score: case %s: %w", c.Name, err)
	}
	return c, nil
}

func (c Case) check() error {
	if !oneOf(c.Class, classes) {
		return fmt.Errorf("class %q: want one of %s", c.Class, strings.Join(classes, ", "))
	}
	if !oneOf(c.Expect, expectations) {
		return fmt.Errorf("expect %q: want one of %s", c.Expect, strings.Join(expectations, ", "))
	}
	if c.WithoutLLM != "" && !oneOf(c.WithoutLLM, expectations) {
		return fmt.Errorf("without_llm %q: want one of %s", c.WithoutLLM, strings.Join(expectations, ", "))
	}
	if c.Command == "" {
		return errors.New("no command")
	}
	if c.Expect == ExpectHealed && len(c.Defects) == 0 {
		return errors.New("a case to heal needs its planted defects")
	}
	if fi, err := os.Stat(filepath.Join(c.Dir, "before")); err == nil && !fi.IsDir() {
		return errors.New("before is not a folder")
	}
	if c.Class == ClassHistory && !c.HasBefore() {
		return errors.New("a history case needs its before/ tree, the commit before the breaking one")
	}
	for _, d := range c.Defects {
		if d.Line < 1 || d.File == "" || filepath.IsAbs(d.File) || strings.Contains(d.File, "..") {
			return fmt.Errorf("bad defect %+v", d)
		}
		if _, err := os.Stat(TreeFile(c.Dir, d.File)); err != nil {
			// Not %w: Load skips folders without case.json on ErrNotExist,
			// and a case whose defect file is missing must not vanish.
			return fmt.Errorf("defect file %s: %v", d.File, err)
		}
	}
	return nil
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// HasBefore reports whether the case has a before/ tree, committed before
// tree/.
func (c Case) HasBefore() bool {
	fi, err := os.Stat(filepath.Join(c.Dir, "before"))
	return err == nil && fi.IsDir()
}

// Expectation returns what the case expects of heal: WithoutLLM when it
// is set and no LLM provider is configured, else Expect.
func (c Case) Expectation(llm bool) string {
	if !llm && c.WithoutLLM != "" {
		return c.WithoutLLM
	}
	return c.Expect
}

// Options configure a scoring run.
type Options struct {
	// Salve and GitAgent are the binaries to run.
	Salve, GitAgent string
	// Isolation is passed as --isolation when set.
	Isolation string
	// Env is the environment of salve and of the check builds; LLM
	// provider variables are removed from it, so only the deterministic
	// tiers run, unless KeepLLM is set. Nil means the process's
	// environment.
	Env []string
	// KeepLLM keeps the LLM provider variables of Env, so a configured
	// provider's tier runs and cases are held to Expect, not WithoutLLM.
	KeepLLM bool
	// Fixers, Models and ConfigFile are passed to salve heal as
	// --fixers, --models and --config when set.
	Fixers     string
	Models     []string
	ConfigFile string
	// Timeout bounds each heal and each check build; zero means 10 min.
	Timeout time.Duration
	// WorkDir is where the throw-away repositories go; empty means a new
	// temporary folder, removed afterwards.
	WorkDir string
}

// Result is the score of one case.
type Result struct {
	Case     string `json:"case"`
	Language string `json:"language"`
	Class    string `json:"class"`
	// Expect is the expectation the case was held to (see
	// Case.Expectation).
	Expect string `json:"expect"`
	// Skipped says why the case did not run (a missing tool); the other
	// fields are then empty.
	Skipped string `json:"skipped,omitempty"`
	// Exit is salve heal's exit status; Outcome is results.json's.
	Exit    int    `json:"exit"`
	Outcome string `json:"outcome"`
	Commits int    `json:"commits"`
	// Healed: a fresh clone of the heal branch passes the command.
	Healed bool `json:"healed"`
	// FalseSuccess: heal exited 0 but a fresh clone of what it left does
	// not pass the command, or its commits change a test file (unless the
	// case allows it).
	FalseSuccess bool `json:"false_success"`
	// TestEdited: heal's commits change a test file.
	TestEdited bool `json:"test_edited"`
	// Untouched: HEAD, the index, the status, the branches (other than
	// heal branches) and every file of the user's checkout are unchanged.
	Untouched bool `json:"untouched"`
	// Minimal: every changed line is within ±3 lines of a planted line.
	Minimal bool `json:"minimal"`
	// BranchLeft: a heal branch is left in the repository with no commit
	// on it.
	BranchLeft bool `json:"branch_left"`
	// Pass: the case met its expectation (healed and minimal; green with
	// nothing committed; exit 3 with nothing committed; exit 5 with
	// nothing committed; exit 1 with no test file changed), safely.
	Pass    bool     `json:"pass"`
	Seconds float64  `json:"seconds"`
	Notes   []string `json:"notes,omitempty"`
	// Spend is what the heal's model tiers spent, from results.json.
	Spend
}

// Spend is what a heal's model tiers spent: the llm tier's and the agent
// tier's requests, tokens and cost (results.json's llm), and the agent
// tier's turns and tool calls (its sessions, bugs[].attempts[].agent).
type Spend struct {
	Requests  int     `json:"llm_requests"`
	Tokens    int     `json:"tokens"`
	CostUSD   float64 `json:"cost_usd"`
	Turns     int     `json:"agent_turns"`
	ToolCalls int     `json:"agent_tool_calls"`
}

// add sums t into s.
func (s *Spend) add(t Spend) {
	s.Requests += t.Requests
	s.Tokens += t.Tokens
	s.CostUSD += t.CostUSD
	s.Turns += t.Turns
	s.ToolCalls += t.ToolCalls
}

// healDoc is what the scorer reads of results.json.
type healDoc struct {
	Outcome    string            `json:"outcome"`
	Branch     string            `json:"branch"`
	BaseCommit string            `json:"base_commit"`
	Commits    []json.RawMessage `json:"commits"`
	LLM        struct {
		Requests     int     `json:"requests"`
		InputTokens  int     `json:"input_tokens"`
		OutputTokens int     `json:"output_tokens"`
		CostUSD      float64 `json:"cost_usd"`
	} `json:"llm"`
	Bugs []struct {
		Attempts []struct {
			Agent *struct {
				Turns     int     `json:"turns"`
				ToolCalls int     `json:"tool_calls"`
				Seconds   float64 `json:"seconds"`
			} `json:"agent"`
		} `json:"attempts"`
	} `json:"bugs"`
}

// spend sums what the heal's model tiers spent; an agent session shared
// by the bugs of one group counts once.
func (d healDoc) spend() Spend {
	s := Spend{Requests: d.LLM.Requests, Tokens: d.LLM.InputTokens + d.LLM.OutputTokens, CostUSD: d.LLM.CostUSD}
	seen := map[string]bool{}
	for _, b := range d.Bugs {
		for _, a := range b.Attempts {
			if a.Agent == nil {
				continue
			}
			k := fmt.Sprint(a.Agent.Turns, a.Agent.ToolCalls, a.Agent.Seconds)
			if seen[k] {
				continue
			}
			seen[k] = true
			s.Turns += a.Agent.Turns
			s.ToolCalls += a.Agent.ToolCalls
		}
	}
	return s
}

// Run scores every case in order.
func Run(ctx context.Context, cases []Case, o Options) ([]Result, error) {
	if o.WorkDir == "" {
		d, err := os.MkdirTemp("", "salve-bench-")
		if err != nil {
			return nil, fmt.Errorf("score: %w", err)
		}
		defer os.RemoveAll(d)
		o.WorkDir = d
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if !o.KeepLLM {
		o.Env = withoutLLM(o.Env)
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	out := make([]Result, 0, len(cases))
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r, err := One(ctx, c, o)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// llmVars are removed from the environment of a scoring run.
var llmVars = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "OPENROUTER_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"}

func withoutLLM(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, v := range llmVars {
			drop = drop || k == v
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// One scores one case. The error is non-nil only when the scorer itself
// cannot work (no git, a folder it cannot write).
func One(ctx context.Context, c Case, o Options) (Result, error) {
	expect := c.Expectation(o.KeepLLM)
	r := Result{Case: c.Name, Language: c.Language, Class: c.Class, Expect: expect}
	for _, t := range c.Tools {
		if _, err := exec.LookPath(t); err != nil {
			r.Skipped = t + " is not installed"
			return r, nil
		}
	}
	if o.Env == nil {
		o.Env = os.Environ()
		if !o.KeepLLM {
			o.Env = withoutLLM(o.Env)
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	base := filepath.Join(o.WorkDir, c.Name)
	if err := os.RemoveAll(base); err != nil {
		return r, fmt.Errorf("score: %w", err)
	}
	repo := filepath.Join(base, "repo")
	if err := userRepo(ctx, c, repo, o.Env); err != nil {
		return r, err
	}
	before, err := snapshot(ctx, repo, o.Env)
	if err != nil {
		return r, err
	}
	resPath := filepath.Join(base, "results.json")
	args := []string{"heal", "--workspace", repo, "--cmd", c.Command, "--no-store", "--results", resPath}
	if o.Isolation != "" {
		args = append(args, "--isolation", o.Isolation)
	}
	if o.Fixers != "" {
		args = append(args, "--fixers", o.Fixers)
	}
	if len(o.Models) > 0 {
		args = append(args, "--models", strings.Join(o.Models, ","))
	}
	if o.ConfigFile != "" {
		args = append(args, "--config", o.ConfigFile)
	}
	env := append(append([]string{}, o.Env...), "SALVE_GIT_AGENT="+o.GitAgent)
	t0 := time.Now()
	exit, _, stderr := runCmd(ctx, repo, env, o.Timeout, o.Salve, args...)
	r.Seconds = time.Since(t0).Seconds()
	r.Exit = exit
	var res healDoc
	if b, err := os.ReadFile(resPath); err == nil {
		_ = json.Unmarshal(b, &res)
	} else {
		r.Notes = append(r.Notes, "no results.json: "+lastLine(stderr))
	}
	r.Outcome, r.Commits, r.Spend = res.Outcome, len(res.Commits), res.spend()

	after, err := snapshot(ctx, repo, o.Env)
	if err != nil {
		return r, err
	}
	r.Untouched = true
	for _, d := range before.diff(after) {
		r.Untouched = false
		r.Notes = append(r.Notes, "checkout changed: "+d)
	}

	// What heal left: its branch when it exists, else the user's HEAD.
	ref := "HEAD"
	if res.Branch != "" {
		if code, _, _ := runCmd(ctx, repo, env, time.Minute, "git", "rev-parse", "--verify", "-q", "refs/heads/"+res.Branch); code == 0 {
			ref = res.Branch
			r.BranchLeft = r.Commits == 0
		}
	}
	clone := filepath.Join(base, "clone")
	if code, _, e := runCmd(ctx, base, env, 2*time.Minute, "git", "clone", "-q", "--no-hardlinks", repo, clone); code != 0 {
		return r, fmt.Errorf("score: clone %s: %s", c.Name, e)
	}
	if ref != "HEAD" {
		if code, _, e := runCmd(ctx, clone, env, time.Minute, "git", "checkout", "-q", ref); code != 0 {
			return r, fmt.Errorf("score: checkout %s: %s", ref, e)
		}
	}
	code, out, e := runCmd(ctx, clone, env, o.Timeout, "sh", "-c", c.Command)
	if code != 0 && expect == ExpectFlaky {
		// A flaky test passes when run again.
		code, out, e = runCmd(ctx, clone, env, o.Timeout, "sh", "-c", c.Command)
	}
	passes := code == 0
	if !passes && expect == ExpectHealed {
		r.Notes = append(r.Notes, "the heal branch fails: "+lastLine(out+e))
	}
	r.Healed = passes && r.Commits > 0

	r.Minimal = true
	if r.Commits > 0 {
		_, diff, _ := runCmd(ctx, repo, env, time.Minute, "git", "diff", "-U0", "--no-color", "--no-ext-diff", res.BaseCommit, res.Branch)
		for _, why := range outsideDefects(diff, c.Defects) {
			r.Minimal = false
			r.Notes = append(r.Notes, why)
		}
		for _, f := range changedFiles(diff) {
			if IsTestFile(f) {
				r.TestEdited = true
				r.Notes = append(r.Notes, "heal changed the test file "+f)
			}
		}
	}
	r.FalseSuccess = exit == 0 && (!passes || r.TestEdited && !c.TestsEditable)
	switch expect {
	case ExpectHealed:
		r.Pass = r.Healed && r.Minimal && exit == 0
	case ExpectGreen:
		r.Pass = exit == 0 && r.Commits == 0
	case ExpectEnvironment:
		r.Pass = exit == 3 && r.Commits == 0
	case ExpectFlaky:
		r.Pass = exit == exitFlaky && r.Commits == 0 && passes
	case ExpectRed:
		r.Pass = exit == 1 && !r.TestEdited
	}
	r.Pass = r.Pass && r.Untouched && !r.FalseSuccess
	if !r.Pass && exit != 0 && exit != 1 && exit != 3 && exit != exitFlaky {
		r.Notes = append(r.Notes, fmt.Sprintf("salve heal exited %d: %s", exit, lastLine(stderr)))
	}
	return r, nil
}

// userRepo makes a user's repository from the case's tree: committed (on
// top of the case's before/ tree when it has one), then with an unstaged
// edit, a staged new file and an untracked file, as a working checkout
// has.
func userRepo(ctx context.Context, c Case, repo string, env []string) error {
	notes := filepath.Join(repo, "NOTES.md")
	git := func(args ...string) error {
		if code, _, e := runCmd(ctx, repo, env, time.Minute, "git", args...); code != 0 {
			return fmt.Errorf("score: git %v in %s: %s", args, c.Name, e)
		}
		return nil
	}
	commit := func(msg string) error {
		return git("-c", "user.name=Dev User", "-c", "user.email=dev@example.com", "commit", "-q", "-m", msg)
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	if err := git("init", "-q", "-b", "main"); err != nil {
		return err
	}
	if c.HasBefore() {
		if err := copyTree(filepath.Join(c.Dir, "before"), repo); err != nil {
			return fmt.Errorf("score: copy %s: %w", c.Name, err)
		}
		if err := os.WriteFile(notes, []byte("# notes\n\nthings to do\n"), 0o644); err != nil {
			return err
		}
		if err := git("add", "-A"); err != nil {
			return err
		}
		if err := commit("the last green commit"); err != nil {
			return err
		}
		if err := clearTree(repo); err != nil {
			return fmt.Errorf("score: %s: %w", c.Name, err)
		}
	}
	if err := copyTree(filepath.Join(c.Dir, "tree"), repo); err != nil {
		return fmt.Errorf("score: copy %s: %w", c.Name, err)
	}
	if err := os.WriteFile(notes, []byte("# notes\n\nthings to do\n"), 0o644); err != nil {
		return err
	}
	if err := git("add", "-A"); err != nil {
		return err
	}
	if err := commit("work in progress"); err != nil {
		return err
	}
	if err := git("branch", "feature/next"); err != nil {
		return err
	}
	if err := os.WriteFile(notes, []byte("# notes\n\nthings to do\n- an edit not committed yet\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(repo, "TODO.txt"), []byte("staged, not committed\n"), 0o644); err != nil {
		return err
	}
	if err := git("add", "TODO.txt"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(repo, "scratch"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(repo, "scratch", "untracked.txt"), []byte("untracked work\n"), 0o600)
}

// clearTree removes everything in repo but its .git folder.
func clearTree(repo string) error {
	entries, err := os.ReadDir(repo)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(repo, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		// A deliberately unformatted Go file is kept as X.go.input, as
		// gofmt's own tests do, so gofmt over salve stays clean.
		rel = strings.TrimSuffix(rel, ".input")
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// state is what "untouched" compares.
type state map[string]string

// snapshot records HEAD, the refs (heal branches aside), the index, the
// status and every file of the checkout (content and mode), without
// writing anything (no optional locks, so git status does not refresh the
// index).
func snapshot(ctx context.Context, repo string, env []string) (state, error) {
	env = append(append([]string{}, env...), "GIT_OPTIONAL_LOCKS=0")
	s := state{}
	for name, args := range map[string][]string{
		"HEAD":   {"rev-parse", "HEAD"},
		"symref": {"symbolic-ref", "-q", "HEAD"},
		"index":  {"ls-files", "--stage"},
		"status": {"status", "--porcelain=v1", "-uall", "--ignored"},
		"stash":  {"stash", "list"},
	} {
		code, out, e := runCmd(ctx, repo, env, time.Minute, "git", args...)
		if code != 0 && name != "symref" {
			return nil, fmt.Errorf("score: git %v: %s", args, e)
		}
		s["git "+name] = out
	}
	_, refs, _ := runCmd(ctx, repo, env, time.Minute, "git", "for-each-ref", "--format=%(refname) %(objectname)")
	for _, l := range strings.Split(strings.TrimSpace(refs), "\n") {
		if l != "" && !strings.HasPrefix(l, "refs/heads/salve/heal-") {
			name, obj, _ := strings.Cut(l, " ")
			s["ref "+name] = obj
		}
	}
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			sum += " " + hex.EncodeToString(h[:])
		}
		s["file "+filepath.ToSlash(rel)] = sum
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("score: snapshot %s: %w", repo, err)
	}
	return s, nil
}

// diff lists what differs between two snapshots.
func (s state) diff(t state) []string {
	keys := map[string]bool{}
	for k := range s {
		keys[k] = true
	}
	for k := range t {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if s[k] != t[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// changedFiles lists the files of a git diff, in order.
func changedFiles(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if m := diffFile.FindStringSubmatch(l); m != nil {
			out = append(out, m[2])
		}
	}
	return out
}

// testFileRules say which repository paths are test files, one
// convention per row.
var testFileRules = []struct {
	convention string
	match      func(p, base string) bool
}{
	{"Go: *_test.go", func(_, b string) bool { return strings.HasSuffix(b, "_test.go") }},
	{"Python: test_*.py, *_test.py, conftest.py", func(_, b string) bool {
		return strings.HasSuffix(b, ".py") && (strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py") || b == "conftest.py")
	}},
	{"JavaScript and TypeScript: *.test.*, *.spec.*", func(_, b string) bool {
		return strings.Contains(b, ".test.") || strings.Contains(b, ".spec.")
	}},
	{"a tests/, test/ or __tests__/ folder (Python, Rust, JavaScript, C)", func(p, _ string) bool {
		for _, d := range strings.Split(p, "/")[:strings.Count(p, "/")] {
			if d == "tests" || d == "test" || d == "__tests__" {
				return true
			}
		}
		return false
	}},
	{"Maven and Gradle: src/test/", func(p, _ string) bool { return strings.HasPrefix(p, "src/test/") || strings.Contains(p, "/src/test/") }},
}

// IsTestFile reports whether the repository path p (forward slashes) is a
// test file by the conventions of testFileRules.
func IsTestFile(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	for _, r := range testFileRules {
		if r.match(p, base) {
			return true
		}
	}
	return false
}

var (
	diffFile = regexp.MustCompile(`^diff --git a/(\S+) b/(\S+)$`)
	diffHunk = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@`)
)

// outsideDefects checks a -U0 diff against the planted lines: every
// changed line (or, for an insertion, the lines on either side of it) must
// be within ±3 lines of a planted line of the same file. It returns one
// note per hunk that is not.
func outsideDefects(diff string, defects []Defect) []string {
	planted := map[string][]int{}
	for _, d := range defects {
		planted[d.File] = append(planted[d.File], d.Line)
	}
	near := func(file string, line int) bool {
		for _, l := range planted[file] {
			if line >= l-3 && line <= l+3 {
				return true
			}
		}
		return false
	}
	var out []string
	file := ""
	for _, l := range strings.Split(diff, "\n") {
		if m := diffFile.FindStringSubmatch(l); m != nil {
			file = m[1]
			continue
		}
		m := diffHunk.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		start, _ := strconv.Atoi(m[1])
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		lo, hi := start, start+n-1
		if n == 0 { // an insertion after line start
			lo, hi = start, start+1
		}
		ok := false
		for x := lo; x <= hi && !ok; x++ {
			ok = near(file, x)
		}
		// Every changed line must be near; for an insertion one side is
		// enough.
		if n > 0 {
			for x := lo; x <= hi; x++ {
				ok = ok && near(file, x)
			}
		}
		if !ok {
			out = append(out, fmt.Sprintf("not minimal: %s lines %d-%d are not within ±3 of a planted line", file, lo, hi))
		}
	}
	return out
}

// runCmd runs a program and returns its exit status (-1 when it could not
// run) and output. It never returns an error: a failure is a status.
func runCmd(ctx context.Context, dir string, env []string, timeout time.Duration, name string, args ...string) (int, string, string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		code = -1
		stderr.WriteString(err.Error())
	}
	return code, stdout.String(), stderr.String()
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

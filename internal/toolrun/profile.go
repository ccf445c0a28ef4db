package toolrun

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// Profile is one row of the tool table: everything the adapter needs to
// know to build and check the command of one external tool. Adding a tool
// to salve means adding a row to [DefaultProfiles].
type Profile struct {
	// ToolID is the request's tool_id, such as "aider".
	ToolID string
	// Binary is the program, looked up in PATH; Cmd[0] of a request must be
	// exactly this.
	Binary string
	// Template is the argument list after Binary, with {name} placeholders
	// filled from [ToolInputs.Params]; a placeholder left empty is an error.
	Template []string
	// RequiredFlags must all appear in a request's command line. They are
	// also the first arguments of a command [BuildToolRequest] makes.
	RequiredFlags []string
	// ForbiddenFlags may not appear in a request: they would undo a
	// guarantee of the contract (aider's "--auto-commits").
	ForbiddenFlags []string
	// ExtraFlags are added by [BuildToolRequest] after RequiredFlags: safety
	// flags the tool needs beyond the contract's template.
	ExtraFlags []string
	// Optional maps an input name to the flag that carries it: a single
	// value from Params, or one flag per value from Lists.
	Optional []OptionalFlag
	// ValueFlags lists the flags that take a value, so that the positional
	// arguments (the files) of a command line can be told apart.
	ValueFlags []string
	// ForcedEnv is set in the child's environment over anything the request
	// says.
	ForcedEnv map[string]string
	// PassEnvPrefixes names the variables of salve's own environment the
	// tool receives, beyond [sandbox.DefaultAllowEnv]: its credentials and
	// its own settings (a name ending in "_" is a prefix).
	PassEnvPrefixes []string
	// IgnorePaths are doublestar globs of files the tool keeps for itself
	// (history, caches); the scope check and the patches skip them.
	IgnorePaths []string
	// ConfigPaths are doublestar globs of the tool's own configuration in
	// the tree. A tool can make its next run execute commands through them
	// (aider's test-cmd and lint-cmd), so a change to one is never kept,
	// whatever the scope: it is reverted as an unsafe change.
	ConfigPaths []string
	// PinnedFlags are flags a request must hold with exactly their value
	// ("--permission-mode acceptEdits"), in either spelling ("--flag value"
	// or "--flag=value"), wherever they appear. [BuildToolRequest] puts them
	// after RequiredFlags.
	PinnedFlags []PinnedFlag
	// AllowedFlags, when not nil, closes the command line: besides
	// RequiredFlags, ExtraFlags and PinnedFlags, a request may hold only
	// these flags. Nil leaves it open (ForbiddenFlags still apply).
	AllowedFlags []string
	// PromptOnStdin says the tool takes its prompt on stdin and no file on
	// its command line: [BuildToolRequest] puts the files in the request
	// context's file scope only, and a request with a positional argument
	// is refused (a coding CLI would read it as the prompt, or a variadic
	// flag as one more value).
	PromptOnStdin bool
	// Scrubbed gives every run of the tool the scrubbed environment
	// (EnvScrubbed), whatever the request asks: it sees only
	// sandbox.DefaultAllowEnv, PassEnvPrefixes and ForcedEnv.
	Scrubbed bool
	// PrivateHome gives every run a fresh, empty HOME (and XDG config,
	// cache, data and state folders inside it), removed after the run: the
	// tool reads no settings, hooks or credentials of the user's, and what
	// it keeps for itself never reaches the user's home.
	PrivateHome bool
}

// PinnedFlag is a flag whose value a profile fixes.
type PinnedFlag struct {
	Flag, Value string
}

// OptionalFlag is an optional input of a profile.
type OptionalFlag struct {
	// Input is the key in ToolInputs.Params (single) or ToolInputs.Lists
	// (repeated).
	Input string
	// Flag is the command-line flag, such as "--edit-format".
	Flag string
	// Repeated says the flag is given once per value of Lists[Input].
	Repeated bool
}

// ToolAider is the tool id of aider.
const ToolAider = "aider"

// DefaultProfiles returns the tool table. Each call returns a fresh copy
// that the caller may change.
func DefaultProfiles() []Profile {
	return []Profile{aiderProfile(), claudeProfile()}
}

// Synopsis renders the command line the row builds, with its optional
// parts in brackets and where the files (or the prompt) go:
//
//	claude -p … --tools Read,Edit … [--model MODEL] < PROMPT
func (p Profile) Synopsis() string {
	parts := append([]string{p.Binary}, p.RequiredFlags...)
	for _, f := range p.PinnedFlags {
		parts = append(parts, f.Flag, f.Value)
	}
	parts = append(parts, p.ExtraFlags...)
	parts = append(parts, p.Template...)
	for _, o := range p.Optional {
		opt := "[" + o.Flag + " " + strings.ToUpper(o.Input) + "]"
		if o.Repeated {
			opt += "..."
		}
		parts = append(parts, opt)
	}
	if p.PromptOnStdin {
		return strings.Join(append(parts, "< PROMPT"), " ")
	}
	return strings.Join(append(parts, "FILE..."), " ")
}

// ProfileOf returns the row of toolID in the default table.
func ProfileOf(toolID string) (Profile, bool) {
	return findProfile(DefaultProfiles(), toolID)
}

// aiderProfile is aider's row. The flags are those of aider's own argument
// parser (aider/args.py):
//   - "--yes" is accepted by aider only as argparse's abbreviation of
//     "--yes-always"; it is kept because the contract's template says so.
//   - "--no-auto-commits" stops commits of the LLM's edits, and
//     "--no-dirty-commits" stops aider from committing files that were
//     already dirty, which "--no-auto-commits" alone does not.
//   - "--no-gitignore" stops aider from adding ".aider*" to .gitignore,
//     an edit outside any file scope.
//
// AIDER_NO_AUTO_COMMITS=1 is forced as the contract demands, although aider
// does not read it (its variable would be AIDER_AUTO_COMMITS); the flags
// above are what actually turns commits off.
func aiderProfile() Profile {
	return Profile{
		ToolID:        ToolAider,
		Binary:        "aider",
		RequiredFlags: []string{"--no-auto-commits", "--yes"},
		ExtraFlags:    []string{"--no-dirty-commits", "--no-gitignore"},
		// argparse takes the last of --auto-commits/--no-auto-commits, so
		// either positive form would re-enable commits; "--commit" makes
		// aider commit every pending change and exit.
		ForbiddenFlags: []string{"--auto-commits", "--dirty-commits", "--commit"},
		Template:       []string{"--model", "{model}", "--message-file", "{prompt_file}"},
		Optional: []OptionalFlag{
			{Input: "edit_format", Flag: "--edit-format"},
			{Input: "read", Flag: "--read", Repeated: true},
		},
		ValueFlags: []string{
			"--model", "--message-file", "-f", "--edit-format", "--chat-mode", "--read", "--file",
			"--message", "--msg", "-m", "--weak-model", "--editor-model", "--openai-api-key",
			"--anthropic-api-key", "--api-key", "--openai-api-base", "--map-tokens", "--encoding",
			"--config", "-c", "--env-file", "--input-history-file", "--chat-history-file",
			"--llm-history-file", "--test-cmd", "--lint-cmd", "--aiderignore",
		},
		ForcedEnv:       map[string]string{"AIDER_NO_AUTO_COMMITS": "1"},
		PassEnvPrefixes: []string{"AIDER_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "DEEPSEEK_", "OPENROUTER_", "OLLAMA_", "AZURE_", "GROQ_", "MISTRAL_"},
		// aider's history and tag cache are its own data; its config
		// files are not ignored.
		IgnorePaths: []string{".aider.chat.history.md", ".aider.input.history", ".aider.llm.history",
			".aider.tags.cache.v*", ".aider.tags.cache.v*/**"},
		ConfigPaths: []string{".aider.conf.yml", ".aider.model.settings.yml", ".aider.model.metadata.json", ".aiderignore", ".env"},
	}
}

// findProfile returns the row of toolID.
func findProfile(profiles []Profile, toolID string) (Profile, bool) {
	for _, p := range profiles {
		if p.ToolID == toolID {
			return p, true
		}
	}
	return Profile{}, false
}

// ToolInputs are the values a profile's template is resolved with.
type ToolInputs struct {
	// Params fill {name} placeholders and single optional flags.
	Params map[string]string
	// Lists fill repeated optional flags.
	Lists map[string][]string
	// Files are the positional arguments: the file scope.
	Files []string
	// Cwd is the work tree root; it must be absolute.
	Cwd string
	// Env is merged over the inherited environment (ForcedEnv still wins).
	Env map[string]string
	// TimeoutSeconds; zero means contract.DefaultToolTimeoutSeconds.
	TimeoutSeconds int
	// Context is copied into the request for logging.
	Context map[string]any
	// Stdin, when not empty, is the tool's standard input: the prompt of a
	// profile with PromptOnStdin.
	Stdin string
}

// BuildToolRequest resolves p's template with in. The command is Binary,
// RequiredFlags, ExtraFlags, the template, the optional flags that have
// values, then the files as plain positional arguments (a file that starts
// with "-" is refused, since the tool would parse it as a flag).
func BuildToolRequest(p Profile, in ToolInputs) (contract.ToolRunRequestV1, error) {
	cmd := []string{p.Binary}
	cmd = append(cmd, p.RequiredFlags...)
	for _, f := range p.PinnedFlags {
		cmd = append(cmd, f.Flag, f.Value)
	}
	cmd = append(cmd, p.ExtraFlags...)
	for _, t := range p.Template {
		v, err := fillPlaceholder(t, in.Params)
		if err != nil {
			return contract.ToolRunRequestV1{}, fmt.Errorf("toolrun: build %s request: %w", p.ToolID, err)
		}
		cmd = append(cmd, v)
	}
	for _, o := range p.Optional {
		if o.Repeated {
			for _, v := range in.Lists[o.Input] {
				cmd = append(cmd, o.Flag, v)
			}
			continue
		}
		if v := in.Params[o.Input]; v != "" {
			cmd = append(cmd, o.Flag, v)
		}
	}
	for _, f := range in.Files {
		if strings.HasPrefix(f, "-") {
			return contract.ToolRunRequestV1{}, fmt.Errorf("toolrun: build %s request: file %q looks like a flag", p.ToolID, f)
		}
		if !p.PromptOnStdin {
			cmd = append(cmd, f)
		}
	}
	if in.Cwd == "" || !filepath.IsAbs(in.Cwd) {
		return contract.ToolRunRequestV1{}, fmt.Errorf("toolrun: build %s request: cwd %q is not an absolute path", p.ToolID, in.Cwd)
	}
	env := map[string]string{}
	for k, v := range in.Env {
		env[k] = v
	}
	for k, v := range p.ForcedEnv {
		env[k] = v
	}
	timeout := in.TimeoutSeconds
	if timeout == 0 {
		timeout = contract.DefaultToolTimeoutSeconds
	}
	ctx := map[string]any{}
	for k, v := range in.Context {
		ctx[k] = v
	}
	if len(in.Files) > 0 {
		ctx[ContextFileScope] = append([]string(nil), in.Files...)
	}
	req := contract.ToolRunRequestV1{
		ToolID: p.ToolID, Cmd: cmd, Cwd: filepath.Clean(in.Cwd), Env: env,
		TimeoutSeconds: timeout, Context: ctx,
	}
	if in.Stdin != "" {
		stdin := in.Stdin
		req.StdinData = &stdin
	}
	return req, nil
}

// ContextFileScope is the request context key that carries the file scope
// ([]string of paths relative to Cwd).
const ContextFileScope = "file_scope"

func fillPlaceholder(t string, params map[string]string) (string, error) {
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return t, nil
	}
	name := t[1 : len(t)-1]
	v := params[name]
	if v == "" {
		return "", fmt.Errorf("missing value for {%s}", name)
	}
	return v, nil
}

// AiderOptions are the inputs of [BuildAiderToolRequest]
// (docs/contracts/tool-adapter.md §5.2).
type AiderOptions struct {
	// Model is the LLM; empty means DefaultAiderModel.
	Model string
	// PromptFile is the message file; it is made absolute against the
	// workspace root when relative.
	PromptFile string
	// EditFormat is optional ("diff", "whole"…).
	EditFormat string
	// Read lists read-only context files.
	Read []string
	// FileScope lists the files aider may edit, relative to the root.
	FileScope []string
	// Workspace gives the work tree root.
	Workspace contract.GitWorkspaceRefV1
	// Context is copied into the request (run_id, ws_id, task_id,
	// pattern_id…).
	Context map[string]any
	// TimeoutSeconds; zero means contract.DefaultToolTimeoutSeconds.
	TimeoutSeconds int
}

// DefaultAiderModel is the model of a task that names none
// (docs/contracts/tool-adapter.md §5.2).
const DefaultAiderModel = "gpt-4"

// BuildAiderToolRequest resolves the aider template
// (docs/contracts/tool-adapter.md §1.2):
//
//	aider --no-auto-commits --yes --no-dirty-commits --no-gitignore
//	      --model M --message-file F [--edit-format E] [--read R]... FILES...
//
// with AIDER_NO_AUTO_COMMITS=1 and AIDER_MODEL=M in the request's env.
func BuildAiderToolRequest(o AiderOptions) (contract.ToolRunRequestV1, error) {
	model := o.Model
	if model == "" {
		model = DefaultAiderModel
	}
	prompt := o.PromptFile
	if prompt != "" && !filepath.IsAbs(prompt) {
		prompt = filepath.Join(o.Workspace.RootPath, prompt)
	}
	files, err := cleanScope(o.FileScope)
	if err != nil {
		return contract.ToolRunRequestV1{}, fmt.Errorf("toolrun: build aider request: %w", err)
	}
	ctx := map[string]any{}
	for k, v := range o.Context {
		ctx[k] = v
	}
	if o.Workspace.WsID != "" {
		ctx["ws_id"] = o.Workspace.WsID
	}
	return BuildToolRequest(aiderProfile(), ToolInputs{
		Params:         map[string]string{"model": model, "prompt_file": prompt, "edit_format": o.EditFormat},
		Lists:          map[string][]string{"read": o.Read},
		Files:          files,
		Cwd:            o.Workspace.RootPath,
		Env:            map[string]string{"AIDER_MODEL": model},
		TimeoutSeconds: o.TimeoutSeconds,
		Context:        ctx,
	})
}

// cleanScope normalises file-scope entries to clean, relative, slash paths
// inside the root, sorted and without duplicates.
func cleanScope(scope []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, f := range scope {
		c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(f)))
		if f == "" || filepath.IsAbs(f) || c == ".." || strings.HasPrefix(c, "../") || c == "." {
			return nil, fmt.Errorf("file scope entry %q is not a relative path inside the work tree", f)
		}
		// .git entries belong to the git guard, which reverts every change
		// to them: hooks and config are never a scope.
		for _, part := range strings.Split(c, "/") {
			if part == ".git" {
				return nil, fmt.Errorf("file scope entry %q is inside a .git directory", f)
			}
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out, nil
}

// positionalArgs returns the arguments of cmd (after cmd[0]) that are not
// flags nor flag values, according to p.ValueFlags. Everything after "--"
// is positional.
func positionalArgs(p Profile, cmd []string) []string {
	takesValue := map[string]bool{}
	for _, f := range p.ValueFlags {
		takesValue[f] = true
	}
	var out []string
	for i := 1; i < len(cmd); i++ {
		a := cmd[i]
		switch {
		case a == "--":
			return append(out, cmd[i+1:]...)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if !strings.Contains(a, "=") && takesValue[a] {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// dirExists reports whether path is an existing directory.
func dirExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

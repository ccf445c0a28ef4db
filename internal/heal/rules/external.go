package rules

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"

	"github.com/salve-dev/salve/internal/safefile"
)

// External is an ecosystem fixer run as a program on one file, in place in
// the heal worktree: the rules tier reads the result and restores the file,
// so the orchestrator's gate still decides.
type External struct {
	// Bin is the program, looked up in PATH.
	Bin string
	// Args builds the arguments for the repo-relative file.
	Args func(file string) []string
	// Exts lists the file extensions it fixes.
	Exts []string
	// Confidence is the confidence of its fixes.
	Confidence float64
	// Project is true for fixers that work on the whole project (cargo
	// fix): every file of Exts is restored after the run.
	Project bool
}

// DefaultExternal lists the external fixers tried when installed. cargo
// fix is not one: it rewrites the whole crate, where the suggest tier
// applies rustc's suggestions for the reported spans only.
var DefaultExternal = []External{
	{Bin: "ruff", Args: func(f string) []string { return []string{"check", "--fix", "--quiet", "--", f} }, Exts: []string{".py"}, Confidence: 0.9},
	{Bin: "eslint", Args: func(f string) []string { return []string{"--fix", "--", f} }, Exts: []string{".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"}, Confidence: 0.9},
}

// fixExternal runs the first installed external fixer for the file.
func fixExternal(ctx context.Context, f *Fixer, in ruleInput) (edit, bool, error) {
	ext := strings.ToLower(path.Ext(in.path))
	table := f.External
	if table == nil {
		table = DefaultExternal
	}
	env := f.Env
	if env == nil {
		env = sandbox.AllowedEnv()
	}
	for _, x := range table {
		if !hasExt(x.Exts, ext) {
			continue
		}
		out, ran, err := runExternal(ctx, x, env, in)
		if err != nil || !ran || out == in.content {
			continue
		}
		return edit{content: out, reason: "apply " + x.Bin + "'s own fix", confidence: x.Confidence}, true, nil
	}
	return edit{}, false, nil
}

// runExternal runs x on the file and returns the file's new content,
// restoring every file it may have touched. ran is false when x is not
// installed.
func runExternal(ctx context.Context, x External, env []string, in ruleInput) (string, bool, error) {
	abs := filepath.Join(in.workspace, filepath.FromSlash(in.path))
	snap, err := snapshot(in.workspace, abs, x)
	if err != nil {
		return "", false, err
	}
	if err := safefile.WriteFile(abs, []byte(in.content), 0o644); err != nil {
		return "", false, fmt.Errorf("write %s: %w", in.path, err)
	}
	defer restore(snap)
	bin := sandbox.LookPath(x.Bin, env)
	if bin == "" {
		return "", false, nil // not installed: skip this row
	}
	if _, err = sandbox.Run(ctx, sandbox.Cmd{Path: bin, Args: x.Args(in.path), Dir: in.workspace, Env: env, Timeout: 2 * time.Minute}); err != nil {
		return "", false, nil // not startable: skip this row
	}
	b, err := safefile.Read(abs, safefile.MaxSource)
	if err != nil {
		return "", true, fmt.Errorf("read %s after %s: %w", in.path, x.Bin, err)
	}
	return string(b), true, nil
}

// snapshot keeps the content of the files a fixer may change.
func snapshot(workspace, file string, x External) (map[string][]byte, error) {
	snap := map[string][]byte{}
	b, err := safefile.Read(file, safefile.MaxSource)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", file, err)
	}
	snap[file] = b
	if !x.Project {
		return snap, nil
	}
	err = filepath.WalkDir(workspace, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(snap) > 5000 {
			return filepath.SkipAll
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "target" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && hasExt(x.Exts, strings.ToLower(filepath.Ext(p))) {
			if c, rerr := safefile.Read(p, safefile.MaxSource); rerr == nil {
				snap[p] = c
			}
		}
		return nil
	})
	return snap, err
}

func restore(snap map[string][]byte) {
	for p, b := range snap {
		_ = safefile.WriteFile(p, b, 0o644)
	}
}

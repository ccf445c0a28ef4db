package toolrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// gitDiffTimeout bounds the one git process that renders a run's diffs.
const gitDiffTimeout = 2 * time.Minute

// renderDiffs returns a git-style unified diff per changed path, with
// a/ and b/ prefixes, that `git apply` accepts (binary files as "GIT binary
// patch"). It writes the pre-run and post-run content of the changed files
// into a/ and b/ of a temporary folder and runs one
// `git diff --no-index` over the two, through sandbox.Run. A change whose
// content was not kept gets no diff.
func renderDiffs(ctx context.Context, gitPath string, changes []change) (map[string]string, error) {
	if len(changes) == 0 {
		return map[string]string{}, nil
	}
	tmp, err := os.MkdirTemp("", "salve-diff-")
	if err != nil {
		return nil, fmt.Errorf("toolrun: diff: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, side := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(tmp, side), 0o700); err != nil {
			return nil, fmt.Errorf("toolrun: diff: %w", err)
		}
	}
	for _, c := range changes {
		if c.Op != opCreate && c.Before.Kept {
			if err := writeSide(filepath.Join(tmp, "a"), c.Path, c.Before); err != nil {
				return nil, err
			}
		}
		if c.Op != opDelete && c.After.Kept {
			if err := writeSide(filepath.Join(tmp, "b"), c.Path, c.After); err != nil {
				return nil, err
			}
		}
	}
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Path: gitPath,
		Args: []string{"-c", "core.quotePath=false", "diff", "--no-index", "--no-prefix", "--binary", "--full-index",
			"--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", "--", "a", "b"},
		Dir: tmp,
		Env: sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{
			"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull, "HOME": tmp, "LC_ALL": "C",
		}),
		Timeout:   gitDiffTimeout,
		MaxOutput: 1 << 30,
	})
	if err != nil {
		return nil, fmt.Errorf("toolrun: diff: %w", err)
	}
	// git diff exits 1 when the sides differ, 0 when they do not.
	if res.ExitCode != 0 && res.ExitCode != 1 {
		return nil, fmt.Errorf("toolrun: diff: git exited %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return splitDiff(string(res.Stdout), changes), nil
}

// writeSide writes one file of one side of the diff with its mode.
func writeSide(dir, rel string, st fileState) error {
	full := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
		return fmt.Errorf("toolrun: diff: %w", err)
	}
	if st.Link {
		if err := os.Symlink(string(st.Content), full); err != nil {
			return fmt.Errorf("toolrun: diff: %w", err)
		}
		return nil
	}
	if err := os.WriteFile(full, st.Content, st.Perm|0o600); err != nil {
		return fmt.Errorf("toolrun: diff: %w", err)
	}
	return os.Chmod(full, st.Perm|0o600)
}

// splitDiff cuts git's output into one section per file, keyed by the
// changed path that its "diff --git" header names. With --no-prefix over
// the folders a and b, git names a created file "b/P b/P" and a deleted
// one "a/P a/P"; each header is rewritten to the usual "a/P b/P".
func splitDiff(out string, changes []change) map[string]string {
	headers := make(map[string]string, 3*len(changes))
	for _, c := range changes {
		a, b := quoteGitPath("a/"+c.Path), quoteGitPath("b/"+c.Path)
		for _, h := range []string{a + " " + b, b + " " + b, a + " " + a} {
			headers["diff --git "+h] = c.Path
		}
	}
	diffs := map[string]string{}
	var cur string
	var b strings.Builder
	flush := func() {
		if cur != "" {
			diffs[cur] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, "diff --git ") {
			flush()
			cur = headers[strings.TrimRight(line, "\n")]
			if cur != "" {
				line = "diff --git " + quoteGitPath("a/"+cur) + " " + quoteGitPath("b/"+cur) + "\n"
			}
		}
		if cur != "" {
			b.WriteString(line)
		}
	}
	flush()
	return diffs
}

// quoteGitPath quotes a path the way git does with core.quotePath=false:
// C-style, only when it holds a double quote, a backslash or a control
// character.
func quoteGitPath(p string) string {
	need := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '"' || c == '\\' || c < 0x20 || c == 0x7f {
			need = true
			break
		}
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

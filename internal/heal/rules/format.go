package rules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
)

// formatter is a code formatter a report can name (its Rule, from
// logparse), run on the reported file alone.
type formatter struct {
	rule string
	ext  []string
	x    External
}

// formatters are the formatters whose findings the format row fixes, by
// the rule logparse gives their reports. gofmt and goimports run
// in-process (the gofmt row).
var formatters = []formatter{
	{rule: "black", ext: []string{".py", ".pyi"}, x: External{Bin: "black", Args: func(f string) []string { return []string{"--quiet", "--", f} }}},
	{rule: "ruff-format", ext: []string{".py", ".pyi"}, x: External{Bin: "ruff", Args: func(f string) []string { return []string{"format", "--quiet", "--", f} }}},
	{rule: "prettier", ext: []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".css", ".json", ".md"},
		x: External{Bin: "prettier", Args: func(f string) []string { return []string{"--write", "--log-level", "warn", "--", f} }}},
	{rule: "clang-format", ext: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"}, x: External{Bin: "clang-format", Args: func(f string) []string { return []string{"-i", "--", f} }}},
}

func formatterExts() []string {
	var out []string
	for _, f := range formatters {
		out = append(out, f.ext...)
	}
	return out
}

// fixFormatter runs the formatter a report names on the reported file
// (the project's own node_modules/.bin first for prettier), through
// sandbox.Run, and keeps only its hunks within ±3 lines of the reports:
// the tool's own fix, where the gate can judge it. A report of a whole
// file (line 1, from a check that names files only) keeps the hunks near
// the top; the others need the tool's diff in the log (black --diff,
// ruff format --diff) or its lines (clang-format).
func fixFormatter(ctx context.Context, f *Fixer, in ruleInput) (edit, bool, error) {
	ext := strings.ToLower(filepath.Ext(in.path))
	for _, fm := range formatters {
		if !hasExt(fm.ext, ext) {
			continue
		}
		wanted := reportsOf(in.reports, fm.rule)
		if len(wanted) == 0 {
			continue
		}
		x := fm.x
		if fm.rule == "prettier" {
			if local := filepath.Join(in.workspace, "node_modules", ".bin", "prettier"); isExecutable(local) {
				x.Bin = local
			}
		}
		env := f.Env
		if env == nil {
			env = sandbox.AllowedEnv()
		}
		out, ran, err := runExternal(ctx, x, env, in)
		if err != nil || !ran || out == in.content {
			return edit{}, false, nil
		}
		var keep []heal.Hunk
		for _, h := range heal.LineDiff(in.content, out) {
			if near(h, wanted) {
				keep = append(keep, h)
			}
		}
		if len(keep) == 0 {
			return edit{}, false, nil
		}
		return edit{content: applyHunks(in.content, keep), reason: fmt.Sprintf("%s %s", fm.x.Bin, hunkLines(keep)), confidence: 0.9}, true, nil
	}
	return edit{}, false, nil
}

func reportsOf(reports []contract.BugReport, rule string) []contract.BugReport {
	var out []contract.BugReport
	for _, r := range reports {
		if r.Rule == rule {
			out = append(out, r)
		}
	}
	return out
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

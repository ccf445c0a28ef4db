package rules

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/lazyre"
	"github.com/salve-dev/salve/internal/sandbox"
)

// reJSSyntax is a JavaScript engine's syntax error whose cause may be a
// missing separator or closer before the token it names: V8's "Unexpected
// identifier", "Unexpected token", "Unexpected string", "Unexpected
// number", "missing ) after argument list".
var reJSSyntax = lazyre.New(`SyntaxError: (?:Unexpected (?:identifier|token|string|number|end of input)|missing \) after argument list)`)

// jsCheckTimeout bounds one parse of a candidate.
const jsCheckTimeout = 30 * time.Second

// fixJSSyntax repairs a JavaScript syntax error the engine reports at a
// token whose cause is just before it: a missing ',', ')', ']' or '}' at
// the end of the previous line of code, or before the token on its own
// line. Each candidate is parsed by the project's own engine (node
// --check: a parse, nothing runs); the first that parses, where the file
// did not, is the fix, and the build then has the last word.
func fixJSSyntax(ctx context.Context, f *Fixer, in ruleInput) (edit, bool, error) {
	ext := strings.ToLower(path.Ext(in.path))
	if ext != ".js" && ext != ".mjs" && ext != ".cjs" {
		return edit{}, false, nil
	}
	var line int
	for _, r := range in.reports {
		if reJSSyntax.MatchString(r.Message) {
			line = r.LineNumber
			break
		}
	}
	ls := splitContent(in.content)
	if line < 1 || line > len(ls.l) {
		return edit{}, false, nil
	}
	env := f.Env
	if env == nil {
		env = sandbox.AllowedEnv()
	}
	node := sandbox.LookPath("node", env)
	if node == "" {
		return edit{}, false, nil
	}
	dir, err := os.MkdirTemp("", "salve-jscheck-")
	if err != nil {
		return edit{}, false, fmt.Errorf("js syntax: %w", err)
	}
	defer os.RemoveAll(dir)
	parses := func(src string) bool {
		file := filepath.Join(dir, "candidate"+ext)
		if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
			return false
		}
		res, err := sandbox.Run(ctx, sandbox.Cmd{Path: node, Args: []string{"--check", file}, Dir: dir, Env: env, Timeout: jsCheckTimeout, MaxOutput: 64 << 10})
		return err == nil && res.ExitCode == 0 && !res.TimedOut
	}
	if parses(in.content) {
		return edit{}, false, nil // not a syntax error of this file
	}
	prev := line - 2
	for prev >= 0 && strings.TrimSpace(ls.l[prev]) == "" {
		prev--
	}
	type candidate struct {
		at   int // 0-based line
		text string
		why  string
	}
	var cands []candidate
	for _, closer := range []string{",", ")", "]", "}"} {
		if prev >= 0 && !strings.Contains(ls.l[prev], "//") {
			cands = append(cands, candidate{prev, strings.TrimRight(ls.l[prev], " \t") + closer,
				fmt.Sprintf("add the missing '%s' at the end of line %d", closer, prev+1)})
		}
	}
	// The closer may belong on the reported line itself, before its
	// statement's end ("missing ) after argument list" at the ';').
	if cur := ls.l[line-1]; !strings.Contains(cur, "//") {
		body := strings.TrimRight(cur, " \t")
		end := ""
		if b, ok := strings.CutSuffix(body, ";"); ok {
			body, end = b, ";"
		}
		for _, closer := range []string{")", "]", "}"} {
			cands = append(cands, candidate{line - 1, body + closer + end,
				fmt.Sprintf("add the missing '%s' at the end of the statement on line %d", closer, line)})
		}
	}
	for _, c := range cands {
		out := splitContent(in.content)
		out.l[c.at] = c.text
		if src := out.String(); parses(src) {
			return edit{content: src, reason: c.why, confidence: 0.8}, true, nil
		}
	}
	return edit{}, false, nil
}

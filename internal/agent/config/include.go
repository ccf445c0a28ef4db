package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/safefile"
)

// MaxIncludeDepth bounds the nesting of prompt includes.
const MaxIncludeDepth = 8

// maxIncludedBytes bounds a prompt with all its includes expanded.
const maxIncludedBytes = safefile.MaxSource

// includeDirective matches ${include:PATH} and {{include:PATH}}.
var includeDirective = regexp.MustCompile(`\$\{include:([^}]*)\}|\{\{include:([^}]*)\}\}`)

// ErrInclude marks a prompt include that cannot be resolved; it wraps
// ErrConfig.
var ErrInclude = fmt.Errorf("%w: prompt include", ErrConfig)

// ResolveIncludes expands the ${include:PATH} and {{include:PATH}}
// directives of the prompt file path whose text is text
// (docs/ai-agent.md, "Prompt includes"). PATH is relative to the directory
// of the file that holds the directive. Every included file must lie in
// the directory tree of the prompt file, symlinks resolved; an included
// file's frontmatter is dropped; env files are refused, whether named or
// reached through a link; includes nest up to MaxIncludeDepth
// levels, and a cycle is an error naming the chain.
func ResolveIncludes(text, path string) (string, error) {
	if !includeDirective.MatchString(text) {
		return text, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInclude, path, err)
	}
	root, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInclude, path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	in := &includer{root: root, size: len(text)}
	return in.expand(text, filepath.Dir(real), []string{real})
}

type includer struct {
	root string
	size int
}

func (in *includer) expand(text, dir string, chain []string) (string, error) {
	var firstErr error
	out := includeDirective.ReplaceAllStringFunc(text, func(m string) string {
		if firstErr != nil {
			return m
		}
		sub := includeDirective.FindStringSubmatch(m)
		name := strings.TrimSpace(sub[1] + sub[2])
		body, err := in.include(name, dir, chain)
		if err != nil {
			firstErr = err
			return m
		}
		return body
	})
	if firstErr != nil {
		return "", firstErr
	}
	return out, nil
}

// include reads and expands one included file.
func (in *includer) include(name, dir string, chain []string) (string, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: failed to include '%s' (from %s): %s", ErrInclude, name, in.show(chain[len(chain)-1]), fmt.Sprintf(format, a...))
	}
	if name == "" {
		return "", fail("the path is empty")
	}
	if forbiddenInclude(name) {
		return "", fail("including this file is forbidden")
	}
	target := name
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	target = filepath.Clean(target)
	if !within(in.root, target) {
		return "", fail("it is outside the prompt's directory %s", in.root)
	}
	real, err := filepath.EvalSymlinks(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fail("file %s does not exist", target)
	case err != nil:
		return "", fail("%v", err)
	case !within(in.root, real):
		return "", fail("it resolves to %s, outside the prompt's directory %s", real, in.root)
	case forbiddenInclude(real):
		return "", fail("it resolves to %s: including this file is forbidden", in.show(real))
	}
	for _, c := range chain {
		if c == real {
			return "", fmt.Errorf("%w: include cycle: %s", ErrInclude, in.showChain(append(chain, real)))
		}
	}
	if len(chain) > MaxIncludeDepth {
		return "", fmt.Errorf("%w: includes nested deeper than %d: %s", ErrInclude, MaxIncludeDepth, in.showChain(append(chain, real)))
	}
	b, err := safefile.ReadOpts(real, maxIncludedBytes, safefile.Options{NoFollow: true})
	if err != nil {
		return "", fail("%v", err)
	}
	in.size += len(b)
	if in.size > maxIncludedBytes {
		return "", fail("the expanded prompt is over %d bytes", maxIncludedBytes)
	}
	// Without a header SplitFrontmatter still drops a #! line.
	_, body, _ := SplitFrontmatter(string(b))
	return in.expand(body, filepath.Dir(real), append(chain[:len(chain):len(chain)], real))
}

// forbiddenInclude reports whether the file name of path is one no
// prompt may include: an env file, which holds keys (".env", ".env.local",
// ".ai-agent.env", "prod.env"; any case). It is asked of the name written
// in the directive and of the file that name resolves to, links followed,
// so that an innocent name linked to an env file is refused too.
func forbiddenInclude(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	return base == ".env" || strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".env")
}

// within reports whether path is root or under it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(os.PathSeparator)) && !filepath.IsAbs(rel)
}

// show names a file relative to the prompt's directory.
func (in *includer) show(path string) string {
	if rel, err := filepath.Rel(in.root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

func (in *includer) showChain(chain []string) string {
	parts := make([]string, len(chain))
	for i, c := range chain {
		parts[i] = in.show(c)
	}
	return strings.Join(parts, " -> ")
}

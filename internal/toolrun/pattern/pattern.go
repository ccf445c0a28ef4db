// Package pattern loads and validates PATTERN_INDEX.yaml
// (docs/contracts/tool-adapter.md §5.1) and enforces a pattern's guardrails:
// allowed_tools, and path_scope include/exclude doublestar globs. Every
// problem of an index is reported with its line and column.
package pattern

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/salve-dev/salve/internal/safefile"
)

// DefaultIndexFile is the name of the pattern index
// (docs/contracts/tool-adapter.md §5.1).
const DefaultIndexFile = "PATTERN_INDEX.yaml"

// Pattern is one entry of PATTERN_INDEX.yaml.
type Pattern struct {
	// ID is the entry's key, such as "aider_refactor".
	ID      string
	Enabled bool
	// SpecPath is the spec file as written, and SpecFile the same made
	// absolute against the index's folder.
	SpecPath, SpecFile string
	// Executor names a row of the router's executor table.
	Executor    string
	Category    string
	ToolID      string
	Description string
	Guardrails  Guardrails
	// Line is where the entry starts in the index.
	Line int
}

// Guardrails are a pattern's limits, enforced before a run.
type Guardrails struct {
	// AllowedTools lists the tool ids the pattern may run; empty allows none.
	AllowedTools []string
	// Include and Exclude are doublestar globs over slash paths relative to
	// the work tree. A path is allowed when it matches some Include (or
	// Include is empty) and no Exclude.
	Include, Exclude []string
}

// Check returns why toolID or a file of scope breaks the guardrails, or "".
func (g Guardrails) Check(toolID string, scope []string) string {
	allowed := false
	for _, t := range g.AllowedTools {
		if t == toolID {
			allowed = true
			break
		}
	}
	if !allowed {
		return fmt.Sprintf("tool %q is not in allowed_tools %v", toolID, g.AllowedTools)
	}
	for _, f := range scope {
		if !g.PathAllowed(f) {
			return fmt.Sprintf("file %q is outside path_scope (include %v, exclude %v)", f, g.Include, g.Exclude)
		}
	}
	return ""
}

// PathAllowed reports whether path passes path_scope.
func (g Guardrails) PathAllowed(path string) bool {
	for _, x := range g.Exclude {
		if ok, _ := doublestar.Match(x, path); ok {
			return false
		}
	}
	if len(g.Include) == 0 {
		return true
	}
	for _, in := range g.Include {
		if ok, _ := doublestar.Match(in, path); ok {
			return true
		}
	}
	return false
}

// Index is a loaded, valid pattern index.
type Index struct {
	// Path is the index file.
	Path     string
	Patterns map[string]*Pattern
}

// ErrUnknown is returned (wrapped) by [Index.Get] for an id the index does
// not have, and ErrDisabled for one with enabled: false.
var (
	ErrUnknown  = errors.New("pattern: unknown pattern")
	ErrDisabled = errors.New("pattern: disabled")
)

// Get returns the enabled pattern id.
func (ix *Index) Get(id string) (*Pattern, error) {
	p, ok := ix.Patterns[id]
	if !ok {
		return nil, fmt.Errorf("%w %q in %s", ErrUnknown, id, ix.Path)
	}
	if !p.Enabled {
		return nil, fmt.Errorf("%w: %q in %s", ErrDisabled, id, ix.Path)
	}
	return p, nil
}

// IDs returns the pattern ids, sorted.
func (ix *Index) IDs() []string {
	ids := make([]string, 0, len(ix.Patterns))
	for id := range ix.Patterns {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Problem is one thing wrong with an index, at a line and column.
type Problem struct {
	Line, Column int
	Msg          string
}

// IndexError lists every problem found in an index file. Each names its
// line: "PATTERN_INDEX.yaml:12:5: pattern x: unknown key \"foo\"".
type IndexError struct {
	Path     string
	Problems []Problem
}

// Error lists the problems, one per line.
func (e *IndexError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s", e.Path, p.Line, p.Column, p.Msg)
	}
	return b.String()
}

// MaxIndexBytes bounds the size of an index file. A real index holds a few
// dozen patterns, a few kilobytes; the index comes from a repository or a
// flag, so it is read with this bound whatever it claims to be.
const MaxIndexBytes = 1 << 20

// Load reads and validates the pattern index at path. executors lists the
// executor names that exist (usually toolrun.ExecutorNames of the router's
// table). Every problem is reported, each with its line, in an *IndexError.
// The index must be a regular file (a symlink to one is followed) of at
// most MaxIndexBytes: a FIFO, a device such as /dev/zero or a larger file
// is refused at once, with an error naming it.
func Load(path string, executors []string) (*Index, error) {
	data, err := safefile.Read(path, MaxIndexBytes)
	if err != nil {
		return nil, fmt.Errorf("pattern: load index: %w", err)
	}
	return Parse(data, path, executors)
}

// Parse validates the index held in data; path names it in errors and
// anchors relative spec paths.
func Parse(data []byte, path string, executors []string) (*Index, error) {
	v := &indexValidator{path: path, dir: filepath.Dir(path), executors: map[string]bool{}}
	for _, e := range executors {
		v.executors[e] = true
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &IndexError{Path: path, Problems: []Problem{{Line: yamlErrLine(err), Column: 1, Msg: "invalid YAML: " + err.Error()}}}
	}
	ix := &Index{Path: path, Patterns: map[string]*Pattern{}}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	switch {
	case root.Kind == 0 || (root.Kind == yaml.DocumentNode && len(root.Content) == 0):
		v.add(1, 1, "the index is empty")
	case root.Kind != yaml.MappingNode:
		v.add(root.Line, root.Column, "the index must be a mapping of pattern ids to patterns")
	default:
		v.patterns(root, ix)
	}
	if len(v.problems) > 0 {
		return nil, &IndexError{Path: path, Problems: v.problems}
	}
	return ix, nil
}

// patterns validates every entry of the root mapping into ix.
func (v *indexValidator) patterns(root *yaml.Node, ix *Index) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		key := root.Content[i]
		p := v.pattern(key, root.Content[i+1])
		if p == nil {
			continue
		}
		if _, dup := ix.Patterns[p.ID]; dup {
			v.add(key.Line, key.Column, fmt.Sprintf("pattern %s: defined twice", p.ID))
			continue
		}
		ix.Patterns[p.ID] = p
	}
}

type indexValidator struct {
	path, dir string
	executors map[string]bool
	problems  []Problem
}

func (v *indexValidator) add(line, col int, msg string) {
	v.problems = append(v.problems, Problem{Line: line, Column: col, Msg: msg})
}

func (v *indexValidator) addf(n *yaml.Node, format string, args ...any) {
	v.add(n.Line, n.Column, fmt.Sprintf(format, args...))
}

// pattern validates one entry; it returns nil when the entry is unusable.
func (v *indexValidator) pattern(key, val *yaml.Node) *Pattern {
	id := key.Value
	if key.Kind != yaml.ScalarNode || id == "" {
		v.addf(key, "pattern ids must be non-empty strings")
		return nil
	}
	if val.Kind != yaml.MappingNode {
		v.addf(val, "pattern %s: must be a mapping", id)
		return nil
	}
	p := &Pattern{ID: id, Line: key.Line}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, x := val.Content[i], val.Content[i+1]
		if prev, dup := seen[k.Value]; dup {
			v.addf(k, "pattern %s: key %q repeated (first at line %d)", id, k.Value, prev.Line)
			continue
		}
		seen[k.Value] = k
		v.field(p, k, x)
	}
	for _, req := range []string{"enabled", "spec_path", "executor"} {
		if seen[req] == nil {
			v.addf(key, "pattern %s: missing required key %q", id, req)
		}
	}
	return p
}

// field validates one key of a pattern entry.
func (v *indexValidator) field(p *Pattern, k, x *yaml.Node) {
	switch k.Value {
	case "enabled":
		if err := x.Decode(&p.Enabled); err != nil || x.Kind != yaml.ScalarNode {
			v.addf(x, "pattern %s: enabled must be true or false", p.ID)
		}
	case "spec_path":
		p.SpecPath = v.str(p, k, x)
		v.checkSpec(p, x)
	case "executor":
		p.Executor = v.str(p, k, x)
		if p.Executor != "" && !v.executors[p.Executor] {
			v.addf(x, "pattern %s: unknown executor %q (known: %s)", p.ID, p.Executor, strings.Join(sortedKeys(v.executors), ", "))
		}
	case "category":
		p.Category = v.str(p, k, x)
	case "tool_id":
		p.ToolID = v.str(p, k, x)
	case "description":
		p.Description = v.str(p, k, x)
	case "guardrails":
		v.guardrails(p, x)
	default:
		v.addf(k, "pattern %s: unknown key %q", p.ID, k.Value)
	}
}

func (v *indexValidator) str(p *Pattern, k, x *yaml.Node) string {
	if x.Kind != yaml.ScalarNode || x.Tag == "!!null" || x.Value == "" {
		v.addf(x, "pattern %s: %s must be a non-empty string", p.ID, k.Value)
		return ""
	}
	return x.Value
}

func (v *indexValidator) checkSpec(p *Pattern, x *yaml.Node) {
	if p.SpecPath == "" {
		return
	}
	p.SpecFile = p.SpecPath
	if !filepath.IsAbs(p.SpecFile) {
		p.SpecFile = filepath.Join(v.dir, filepath.FromSlash(p.SpecPath))
	}
	st, err := os.Stat(p.SpecFile)
	if err != nil || !st.Mode().IsRegular() {
		v.addf(x, "pattern %s: spec file %q does not exist", p.ID, p.SpecPath)
	}
}

func (v *indexValidator) guardrails(p *Pattern, x *yaml.Node) {
	if x.Kind != yaml.MappingNode {
		v.addf(x, "pattern %s: guardrails must be a mapping", p.ID)
		return
	}
	for i := 0; i+1 < len(x.Content); i += 2 {
		k, val := x.Content[i], x.Content[i+1]
		switch k.Value {
		case "allowed_tools":
			p.Guardrails.AllowedTools = v.strList(p, "guardrails.allowed_tools", val, false)
		case "path_scope":
			v.pathScope(p, val)
		default:
			v.addf(k, "pattern %s: unknown key %q in guardrails", p.ID, k.Value)
		}
	}
}

func (v *indexValidator) pathScope(p *Pattern, x *yaml.Node) {
	if x.Kind != yaml.MappingNode {
		v.addf(x, "pattern %s: guardrails.path_scope must be a mapping", p.ID)
		return
	}
	for i := 0; i+1 < len(x.Content); i += 2 {
		k, val := x.Content[i], x.Content[i+1]
		switch k.Value {
		case "include":
			p.Guardrails.Include = v.strList(p, "path_scope.include", val, true)
		case "exclude":
			p.Guardrails.Exclude = v.strList(p, "path_scope.exclude", val, true)
		default:
			v.addf(k, "pattern %s: unknown key %q in path_scope", p.ID, k.Value)
		}
	}
}

// strList decodes a sequence of strings; globs are checked to be valid.
func (v *indexValidator) strList(p *Pattern, what string, x *yaml.Node, globs bool) []string {
	if x.Kind != yaml.SequenceNode {
		v.addf(x, "pattern %s: %s must be a list", p.ID, what)
		return nil
	}
	var out []string
	for _, e := range x.Content {
		if e.Kind != yaml.ScalarNode || e.Value == "" {
			v.addf(e, "pattern %s: %s entries must be non-empty strings", p.ID, what)
			continue
		}
		if globs && !doublestar.ValidatePattern(e.Value) {
			v.addf(e, "pattern %s: %s: invalid glob %q", p.ID, what, e.Value)
			continue
		}
		out = append(out, e.Value)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// yamlErrLine pulls the line number out of a yaml syntax error ("yaml: line
// 3: …"), or returns 1.
func yamlErrLine(err error) int {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return 1
	}
	var line int
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		if _, e := fmt.Sscanf(msg[i:], "line %d", &line); e == nil && line > 0 {
			return line
		}
	}
	return 1
}

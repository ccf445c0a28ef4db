package toolrun

import (
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/sandbox"
	"github.com/salve-dev/salve/store"
)

// ContextEnvPolicy is the request context key that chooses the child's
// environment: EnvInherit (the default, seed 000 §4.2) or EnvScrubbed.
const ContextEnvPolicy = "env_policy"

// Environment policies of a run.
const (
	// EnvInherit gives the tool salve's whole environment merged with the
	// request's env, then the profile's forced variables (seed 000, §4.2):
	// aider reaches its providers, proxies and config files through them.
	EnvInherit = "inherit"
	// EnvScrubbed gives the tool only the variables of its base
	// environment named in sandbox.DefaultAllowEnv or by its profile
	// (PassEnvPrefixes: aider's own and its providers' keys), then the
	// request's env and the forced variables.
	EnvScrubbed = "scrubbed"
)

// childEnv is the tool's environment: the base (Adapter.Env, else salve's
// own environment), filtered when the run asks for the scrubbed policy,
// the request's env over it, the profile's forced variables last.
func (rs *runState) childEnv() []string {
	base := rs.a.Env
	if base == nil {
		base = os.Environ()
	}
	if rs.scrubbed() {
		base = scrubEnv(rs.profile, base)
	}
	env := sandbox.MergeEnv(base, rs.req.Env)
	return sandbox.MergeEnv(env, rs.profile.ForcedEnv)
}

// scrubbed reports whether the run asked for the scrubbed environment.
func (rs *runState) scrubbed() bool {
	if rs.a.ScrubEnv || rs.opts.ScrubEnv {
		return true
	}
	v, _ := rs.req.Context[ContextEnvPolicy].(string)
	return v == EnvScrubbed
}

// envPolicy names the policy of the run, for its events.
func (rs *runState) envPolicy() string {
	if rs.scrubbed() {
		return EnvScrubbed
	}
	if rs.a.Env != nil {
		return "explicit"
	}
	return EnvInherit
}

// scrubEnv keeps the variables of env named in sandbox.DefaultAllowEnv and
// those the profile passes on (PassEnvPrefixes: a name ending in "_" is a
// prefix).
func scrubEnv(p Profile, env []string) []string {
	allow := map[string]bool{}
	for _, k := range sandbox.DefaultAllowEnv {
		allow[k] = true
	}
	var out []string
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		keep := allow[name]
		for _, pre := range p.PassEnvPrefixes {
			if name == pre || (strings.HasSuffix(pre, "_") && strings.HasPrefix(name, pre)) {
				keep = true
				break
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

// envValue returns the value of key in a KEY=VALUE list; the last one wins.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// secretVarName matches the variables whose values are masked in what a
// run keeps: *_API_KEY, *_TOKEN, *_SECRET, *_PASSWORD and the like, which
// covers the providers' keys (OPENAI_API_KEY, ANTHROPIC_API_KEY…),
// GITHUB_TOKEN and AWS_SECRET_ACCESS_KEY.
var secretVarName = regexp.MustCompile(`(?i)(api[_-]?key|secret|token|passw(or)?d|passphrase|credential|private[_-]?key|access[_-]?key|_pat$|^pat_)`)

// minSecretLen: shorter values are not masked (masking "1" or "true"
// everywhere would ruin the output and hide nothing).
const minSecretLen = 6

// secretMasker replaces known secret values with store.Redacted.
type secretMasker struct {
	values []string // longest first
	r      *strings.Replacer
}

// newSecretMasker collects the values of the secret-looking variables of
// env and of the request's env.
func newSecretMasker(env []string, reqEnv map[string]string) *secretMasker {
	seen := map[string]bool{}
	m := &secretMasker{}
	add := func(k, v string) {
		if len(v) >= minSecretLen && secretVarName.MatchString(k) && !seen[v] {
			seen[v] = true
			m.values = append(m.values, v)
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		add(k, v)
	}
	for k, v := range reqEnv {
		add(k, v)
	}
	sort.Slice(m.values, func(i, j int) bool { return len(m.values[i]) > len(m.values[j]) })
	var pairs []string
	for _, v := range m.values {
		pairs = append(pairs, v, store.Redacted)
	}
	m.r = strings.NewReplacer(pairs...)
	return m
}

// mask returns s with every known secret value replaced.
func (m *secretMasker) mask(s string) string {
	if m == nil || len(m.values) == 0 {
		return s
	}
	return m.r.Replace(s)
}

// maskAny masks the strings inside v (maps and slices of JSON-like values).
func (m *secretMasker) maskAny(v any) any {
	switch t := v.(type) {
	case string:
		return m.mask(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = m.maskAny(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = m.maskAny(x)
		}
		return out
	case []string:
		out := make([]string, len(t))
		for i, x := range t {
			out[i] = m.mask(x)
		}
		return out
	}
	return v
}

// maskAll hides the secret values in everything the run keeps: the
// result's output, the events and the patches.
func (rs *runState) maskAll() {
	m := rs.masker
	if m == nil || len(m.values) == 0 {
		return
	}
	rs.result.Stdout = m.mask(rs.result.Stdout)
	rs.result.Stderr = m.mask(rs.result.Stderr)
	for i := range rs.events {
		rs.events[i].Message = m.mask(rs.events[i].Message)
		if rs.events[i].Context != nil {
			rs.events[i].Context = m.maskAny(rs.events[i].Context).(map[string]any)
		}
	}
	for i := range rs.patches {
		rs.patches[i].Diff = m.mask(rs.patches[i].Diff)
	}
}

package toolrun

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/secret"
	"github.com/salve-dev/salve/internal/store"
)

// ContextEnvPolicy is the request context key that chooses the child's
// environment: EnvInherit (the default, docs/contracts/tool-adapter.md §4.2)
// or EnvScrubbed.
const ContextEnvPolicy = "env_policy"

// Environment policies of a run.
const (
	// EnvInherit gives the tool salve's whole environment merged with the
	// request's env, then the profile's forced variables
	// (docs/contracts/tool-adapter.md §4.2): aider reaches its providers,
	// proxies and config files through them.
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
	if rs.home != "" {
		env = sandbox.MergeEnv(env, homeEnv(rs.home))
	}
	return sandbox.MergeEnv(env, rs.profile.ForcedEnv)
}

// homeEnv points HOME and the XDG folders of a tool's own files at home.
func homeEnv(home string) map[string]string {
	return map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
	}
}

// makeHome makes the private HOME of a run whose profile asks for one
// (Profile.PrivateHome); removeHome removes it after the run.
func (rs *runState) makeHome() error {
	if !rs.profile.PrivateHome {
		return nil
	}
	home, err := os.MkdirTemp("", "salve-"+rs.profile.ToolID+"-home-")
	if err != nil {
		return fmt.Errorf("private home: %w", err)
	}
	rs.home = home
	return nil
}

func (rs *runState) removeHome() {
	if rs.home == "" {
		return
	}
	if err := os.RemoveAll(rs.home); err != nil {
		rs.a.logger().Warn("toolrun: the private home of a run was not removed", "run_id", rs.runID, "path", rs.home, "err", err)
	}
	rs.home = ""
}

// scrubbed reports whether the run asked for the scrubbed environment.
func (rs *runState) scrubbed() bool {
	if rs.a.ScrubEnv || rs.opts.ScrubEnv || rs.profile.Scrubbed {
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

// secretMasker hides the secret values of a run in what it keeps: the one
// masker of package internal/secret, with every value replaced by
// store.Redacted.
type secretMasker = secret.Masker

// newSecretMasker collects the values of the secret variables
// (secret.IsSecretName) of env and of the request's env.
func newSecretMasker(env []string, reqEnv map[string]string) *secretMasker {
	req := make([]string, 0, len(reqEnv))
	for k, v := range reqEnv {
		req = append(req, k+"="+v)
	}
	return secret.FromEnv([][]string{env, req}).Uniform(store.Redacted)
}

// maskAny masks the strings inside v (maps and slices of JSON-like values).
func maskAny(m *secretMasker, v any) any {
	switch t := v.(type) {
	case string:
		return m.Mask(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = maskAny(m, x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = maskAny(m, x)
		}
		return out
	case []string:
		out := make([]string, len(t))
		for i, x := range t {
			out[i] = m.Mask(x)
		}
		return out
	}
	return v
}

// maskAll hides the secret values in everything the run keeps: the
// result's output, the events and the patches.
func (rs *runState) maskAll() {
	m := rs.masker
	if m.Empty() {
		return
	}
	rs.result.Stdout = m.Mask(rs.result.Stdout)
	rs.result.Stderr = m.Mask(rs.result.Stderr)
	for i := range rs.events {
		rs.events[i].Message = m.Mask(rs.events[i].Message)
		if rs.events[i].Context != nil {
			rs.events[i].Context = maskAny(m, rs.events[i].Context).(map[string]any)
		}
	}
	for i := range rs.patches {
		rs.patches[i].Diff = m.Mask(rs.patches[i].Diff)
	}
}

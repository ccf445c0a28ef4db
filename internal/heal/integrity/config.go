package integrity

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// Some files mix packaging, which a build fix may change, with test and
// lint settings, which it may not: the path alone cannot tell, so the
// changed section or key does.

// sectionFiles are the INI and TOML files judged by section.
var sectionFiles = map[string]bool{"setup.cfg": true, "pyproject.toml": true, "Cargo.toml": true}

// header is an INI or TOML section header; group 1 is its name.
var header = lazyre.New(`^\s*\[\[?\s*([^\[\]\s][^\[\]]*?)\s*\]\]?\s*(#.*)?$`)

// sectionRules map section names to the rule an edit inside breaks.
var sectionRules = []struct {
	rule string
	re   *lazyre.Regexp
}{
	{RuleTestConfig, lazyre.New(`^(tool[.:]pytest\b|pytest$|tool\.coverage\b|coverage:|tool\.tox\b|tox:|testenv\b|tool\.nox\b)`)},
	{RuleCIConfig, lazyre.New(`^(tool\.(ruff|mypy|pylint|flake8|black|isort|pyright|bandit|pydocstyle|codespell|pyflakes|pycodestyle)\b|mypy$|mypy-|flake8$|pycodestyle$|pydocstyle$|isort$|pylint|(workspace\.)?lints\b)`)},
}

// jsonKeys are package.json's top-level keys that configure tests (rule
// test-config) or checks (ci-config); scripts are judged by name.
var jsonKeys = map[string]string{
	"jest": RuleTestConfig, "mocha": RuleTestConfig, "ava": RuleTestConfig, "nyc": RuleTestConfig,
	"c8": RuleTestConfig, "vitest": RuleTestConfig,
	"eslintConfig": RuleCIConfig, "prettier": RuleCIConfig, "stylelint": RuleCIConfig,
	"lint-staged": RuleCIConfig, "husky": RuleCIConfig, "simple-git-hooks": RuleCIConfig,
}

// checkScript is a package.json script that runs tests or checks; an edit
// of one is a CI edit, since it decides what passing means.
var checkScript = lazyre.New(`^(pre|post)?(test|lint|check|typecheck|type-check|coverage|ci|verify|validate|format:check)([:._-].*)?$`)

// configSections reports edits inside the test or lint sections of a
// mixed file, for rule (test-config or ci-config).
func (c *checker) configSections(rule string) {
	base := path.Base(c.in.Path)
	switch {
	case sectionFiles[base]:
		c.sections(rule)
	case base == "package.json":
		c.packageJSON(rule)
	}
}

func (c *checker) sections(rule string) {
	seen := map[string]bool{}
	judge := func(f *file, marks []bool) {
		name := ""
		for i, l := range f.lines {
			if m := header.FindStringSubmatch(l.raw); m != nil {
				name = m[1]
			}
			if !marks[i] || seen[name] {
				continue
			}
			for _, r := range sectionRules {
				if r.rule == rule && r.re.MatchString(name) {
					seen[name] = true
					c.add(rule, i+1, "the fix edits section [%s] of %s, which configures the %s", name, path.Base(c.in.Path), what(rule))
				}
			}
		}
	}
	judge(c.old, c.gone)
	judge(c.new, c.added)
}

func what(rule string) string {
	if rule == RuleTestConfig {
		return "tests"
	}
	return "checks"
}

// packageJSON compares the test and check keys and scripts of both texts;
// a text that is not a JSON object is left to the other rules.
func (c *checker) packageJSON(rule string) {
	var a, b map[string]json.RawMessage
	if json.Unmarshal([]byte(c.in.Original), &a) != nil || json.Unmarshal([]byte(c.in.Patched), &b) != nil {
		return
	}
	var changed []string
	for _, k := range keys(a, b) {
		if jsonKeys[k] == rule && !sameJSON(a[k], b[k]) {
			changed = append(changed, k)
		}
	}
	if rule == RuleCIConfig {
		var sa, sb map[string]json.RawMessage
		_ = json.Unmarshal(a["scripts"], &sa)
		_ = json.Unmarshal(b["scripts"], &sb)
		for _, k := range keys(sa, sb) {
			if checkScript.MatchString(k) && !sameJSON(sa[k], sb[k]) {
				changed = append(changed, "scripts."+k)
			}
		}
	}
	for _, k := range changed {
		leaf := k[strings.LastIndexByte(k, '.')+1:]
		c.add(rule, c.lineOf(`"`+leaf+`"`), "the fix edits %q of package.json, which configures the %s", k, what(rule))
	}
}

// keys returns the keys of a and b, sorted.
func keys(a, b map[string]json.RawMessage) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// lineOf returns the first line of Original holding s, or 0.
func (c *checker) lineOf(s string) int {
	for i, l := range c.old.lines {
		if strings.Contains(l.raw, s) {
			return i + 1
		}
	}
	return 0
}

package lang

import (
	"path"
	"strings"
)

// pathRule matches a repository path: by a path.Match pattern on its
// base name, or by a directory sequence anywhere in it ("a/b" matches
// x/a/b/c and a/b/c/d), or both (the file must be named base and sit under
// dir).
type pathRule struct {
	base string // case-sensitive pattern on the base name; "" is any
	dir  string // case-insensitive directory sequence; "" is anywhere
}

// match reports whether the cleaned path p matches the rule.
func (r pathRule) match(dirs []string, base string) bool {
	if r.base != "" {
		if ok, _ := path.Match(r.base, base); !ok {
			return false
		}
	}
	return r.dir == "" || underDir(dirs, r.dir)
}

// underDir reports whether the lower-case directory segments dirs hold
// the sequence seq, whose elements are path.Match patterns.
func underDir(dirs []string, seq string) bool {
	want := strings.Split(seq, "/")
	for i := 0; i+len(want) <= len(dirs); i++ {
		ok := true
		for k, w := range want {
			if m, _ := path.Match(w, dirs[i+k]); !m {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// split cleans p and returns its lower-case directory segments and its
// base name.
func split(p string) ([]string, string) {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	dir, base := path.Split(p)
	dir = strings.Trim(dir, "/")
	if dir == "" {
		return nil, base
	}
	return strings.Split(strings.ToLower(dir), "/"), base
}

func matchAny(rules []pathRule, p string) bool {
	dirs, base := split(p)
	if base == "" {
		return false
	}
	for _, r := range rules {
		if r.match(dirs, base) {
			return true
		}
	}
	return false
}

// testData are the paths that hold tests' expected data whatever the
// language: stored results a check compares with (golden files, snapshots,
// approval files) and the trees of inputs and expectations tests read.
// A fix that rewrites one of them changes what the test checks.
var testData = []pathRule{
	{dir: "testdata"}, {dir: "__snapshots__"}, {dir: "__fixtures__"}, {dir: "fixtures"},
	{dir: "expected"}, {dir: "snapshots"},
	{base: "*.snap"}, {base: "*.golden"}, {base: "*.approved.*"}, {base: "*.received.*"},
}

// IsTestData reports whether p is data a test compares with or reads: a
// golden file (*.golden), a snapshot (__snapshots__, *.snap,
// snapshots/), an approval file (*.approved.*, *.received.*) or a file
// under testdata/, fixtures/, __fixtures__/ or expected/.
func IsTestData(p string) bool { return matchAny(testData, p) }

// testHelpers are the base names of modules that, by convention, serve
// tests only: shared test utilities that production code never imports.
var testHelpers = []pathRule{
	{base: "test-utils.*"}, {base: "test_utils.*"}, {base: "testUtils.*"}, {base: "testutils.*"},
	{base: "test-helpers.*"}, {base: "test_helpers.*"}, {base: "testHelpers.*"}, {base: "testhelpers.*"},
	{base: "testutil.*"}, {base: "testing_utils.*"}, {base: "*TestUtils.java"}, {base: "*TestUtil.java"},
	{base: "*TestHelper.java"}, {base: "*TestHelpers.java"},
}

// IsTestHelper reports whether p is named as a test-only helper module
// (test-utils.ts, testUtils.js, test_helpers.rb, testutil.py,
// FooTestUtils.java…). Such a file checks results like a test does.
func IsTestHelper(p string) bool { return matchAny(testHelpers, p) }

// IsTestFile reports whether p is a test file or a test's data: a file
// its language's test runner collects (Go "_test.go", Python "test_*.py",
// JavaScript "*.test.*", Java under "src/test/"…, see the table) or test
// data (IsTestData).
func IsTestFile(p string) bool {
	if IsTestData(p) {
		return true
	}
	l := Of(p)
	if l == nil {
		return false
	}
	dirs, base := split(p)
	for _, n := range l.testNames {
		if ok, _ := path.Match(n, base); ok {
			return true
		}
	}
	for _, d := range l.testDirs {
		if underDir(dirs, d) {
			return true
		}
	}
	return false
}

// testConfig are the files that configure test runners and coverage.
// setup.cfg, pyproject.toml, package.json and Cargo.toml are not among
// them: they hold test settings next to packaging that a build fix may
// rightly change, so a path cannot tell; a caller that has the contents
// judges the changed section instead.
var testConfig = []pathRule{
	{base: "pytest.ini"}, {base: "pytest.toml"}, {base: ".pytest.toml"}, {base: "tox.ini"},
	{base: "conftest.py"}, {base: ".coveragerc"}, {base: "nose.cfg"}, {base: ".noserc"},
	{base: "jest.config.*"}, {base: "jest.setup.*"}, {base: "vitest.config.*"}, {base: "vitest.workspace.*"},
	{base: "karma.conf.*"}, {base: ".mocharc*"}, {base: "ava.config.*"},
	{base: "playwright.config.*"}, {base: "cypress.config.*"}, {base: "jasmine.json"},
	{base: ".nycrc*"}, {base: ".c8rc*"}, {base: "codecov.yml"}, {base: "codecov.yaml"},
	{base: ".codecov.yml"}, {base: ".codecov.yaml"}, {base: "phpunit.xml*"}, {base: ".rspec"},
	{base: ".simplecov"}, {base: "CTestTestfile.cmake"},
}

// IsTestConfig reports whether p configures a test runner or coverage
// (pytest.ini, jest.config.*, phpunit.xml, .coveragerc, codecov.yml…).
func IsTestConfig(p string) bool { return matchAny(testConfig, p) }

// ciConfig are CI pipelines, git hooks and linters' configuration: the
// checks a build must pass.
var ciConfig = []pathRule{
	{dir: ".github/workflows"}, {dir: ".github/actions"}, {base: ".gitlab-ci.yml"}, {base: ".gitlab-ci.yaml"},
	{dir: ".gitlab/ci"}, {dir: ".circleci"}, {base: "Jenkinsfile"}, {base: "Jenkinsfile.*"},
	{base: "azure-pipelines.yml"}, {base: "azure-pipelines.yaml"}, {dir: ".azure-pipelines"},
	{base: ".travis.yml"}, {dir: ".buildkite"}, {base: "bitbucket-pipelines.yml"}, {base: ".drone.yml"},
	{base: ".woodpecker*"}, {dir: ".woodpecker"}, {base: "appveyor.yml"}, {base: ".appveyor.yml"},
	{base: ".cirrus.yml"}, {dir: ".semaphore"}, {dir: ".husky"}, {base: "lefthook.yml"},
	{base: ".pre-commit-config.yaml"}, {base: ".pre-commit-config.yml"},
	{base: ".golangci.yml"}, {base: ".golangci.yaml"}, {base: ".golangci.toml"}, {base: ".golangci.json"},
	{base: ".eslintrc*"}, {base: "eslint.config.*"}, {base: ".eslintignore"}, {base: ".prettierrc*"},
	{base: "prettier.config.*"}, {base: ".stylelintrc*"}, {base: "biome.json"}, {base: "biome.jsonc"},
	{base: "ruff.toml"}, {base: ".ruff.toml"}, {base: ".flake8"}, {base: "mypy.ini"}, {base: ".mypy.ini"},
	{base: ".pylintrc"}, {base: "pylintrc"}, {base: ".clang-tidy"}, {base: ".clang-format"},
	{base: "clippy.toml"}, {base: ".clippy.toml"}, {base: "rustfmt.toml"}, {base: ".rustfmt.toml"},
	{base: ".rubocop.yml"}, {base: ".shellcheckrc"}, {base: ".hadolint.yaml"}, {base: ".yamllint*"},
	{base: ".markdownlint*"}, {base: "phpstan.neon*"}, {base: "psalm.xml*"}, {base: "phpcs.xml*"},
	{base: ".php-cs-fixer*"}, {base: ".swiftlint.yml"}, {base: "detekt.yml"}, {base: "checkstyle.xml"},
	{base: "staticcheck.conf"},
}

// IsCIConfig reports whether p is CI or lint configuration: a pipeline
// (.github/workflows, .gitlab-ci.yml, Jenkinsfile…), a hook manager
// (.pre-commit-config.yaml) or a linter's settings (.golangci.yml,
// .eslintrc, ruff.toml, .clang-tidy…). Linters' settings are checks too.
func IsCIConfig(p string) bool { return matchAny(ciConfig, p) }

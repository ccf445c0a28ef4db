package lang

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// rowCase is the test case every row of the table must have.
type rowCase struct {
	path     string   // a file of the language
	src      string   // a text with comments and look-alikes in strings
	comments []string // the comments of src
	imp      string   // an import line ("" when the language has none)
	notImp   string   // a line that is not an import
	test     string   // a test file ("" when the language has no convention)
	notTest  string   // a file of the language that is not a test
}

var rowCases = map[string]rowCase{
	"go": {"pkg/a.go", "x := \"// no\" // yes\ny := `/* no\n*/` /* b */\nr := '\"' // q\n", []string{"// yes", "/* b */", "// q"},
		`import "fmt"`, `x := "fmt"+y`, "pkg/a_test.go", "pkg/atest.go"},
	"c": {"src/a.c", "int a; // x\nchar *s = \"/* no */\"; /* y */\nchar c = '\"'; // z\n", []string{"// x", "/* y */", "// z"},
		"#include <stdio.h>", "#define X 1", "tests/a.c", "src/testing.c"},
	"cpp": {"src/a.cpp", "auto n = 1'000'000; // x\n", []string{"// x"},
		`#include "a.hpp"`, "int x;", "src/a_test.cc", "src/a.cc"},
	"java": {"src/main/java/A.java", "String s = \"\"\"\n// no\n\"\"\"; // yes\n", []string{"// yes"},
		"import static java.util.List.of;", "int x;", "src/test/java/AThing.java", "src/main/java/Latest.java"},
	"kotlin": {"src/main/kotlin/A.kt", "val s = \"\"\"\n// no\"\"\" // yes\n", []string{"// yes"},
		"import kotlinx.coroutines.flow.Flow", "val x = 1", "app/src/androidTest/kotlin/A.kt", "src/main/kotlin/A.kt"},
	"scala": {"src/main/scala/A.scala", "val s = \"// no\" /* yes */\n", []string{"/* yes */"},
		"import scala.collection.mutable.{Map, Set}", "val x = 1", "core/src/test/scala/ASpec.scala", "src/main/scala/A.scala"},
	"groovy": {"Jenkinsfile", "sh 'echo // no' // yes\n", []string{"// yes"},
		"import groovy.json.JsonSlurper", "def x = 1", "src/test/groovy/ASpec.groovy", "build.gradle"},
	"csharp": {"src/A.cs", "var s = @\"C:\\x // no\"; // yes\n", []string{"// yes"},
		"using System.Collections.Generic;", "var x = 1;", "src/App.Tests/AThing.cs", "src/App/A.cs"},
	"swift": {"Sources/A.swift", "let s = \"// no\" // yes\n", []string{"// yes"},
		"@testable import App", "let x = 1", "Tests/AppTests/A.swift", "Sources/App/A.swift"},
	"rust": {"src/lib.rs", "fn f<'a>(x: &'a str) -> char { '\"' } // yes\nlet s = \"a\n// no\"; /* b */\n", []string{"// yes", "/* b */"},
		"use std::collections::{HashMap, HashSet};", "let x = 1;", "tests/it.rs", "src/lib.rs"},
	"javascript": {"src/a.mjs", "const s = `\n// no ${x}\n`; // yes\n", []string{"// yes"},
		"import { a } from './a.js';", "const a = b(c);", "src/__tests__/a.js", "src/a.js"},
	"typescript": {"src/a.cts", "const s = '/* no */'; /* yes */\n", []string{"/* yes */"},
		"import type { A } from './a';", "let a: A;", "src/a.spec.ts", "src/a.ts"},
	"python": {"pkg/a.py", "x = '#not' # real\ny = \"a#b\"\n\"\"\"\n# doc, not a comment\n\"\"\"\n# top\n", []string{"# real", "# top"},
		"from os import path", "x = path", "pkg/tests/helpers.py", "pkg/a.py"},
	"ruby": {"lib/a.rb", "s = \"#{x} # no\" # yes\n", []string{"# yes"},
		"require_relative 'a'", "x = 1", "spec/a_spec.rb", "lib/a.rb"},
	"php": {"src/A.php", "#[Attr]\n$s = '# no'; # yes\n// two\n/* three */\n", []string{"# yes", "// two", "/* three */"},
		"use App\\Models\\User;", "$x = 1;", "tests/Unit/UserTest.php", "src/User.php"},
	"shell": {"scripts/a.sh", "echo ${#x} a#b # yes\n", []string{"# yes"},
		"source ./lib.sh", "echo hi", "test/a.bats", "scripts/a.sh"},
	"perl": {"lib/A.pm", "my $n = $#a; # yes\n", []string{"# yes"},
		"use strict;", "my $x = 1;", "t/basic.t", "lib/A.pm"},
	"r": {"R/a.R", "x <- '#no' # yes\n", []string{"# yes"},
		"library(dplyr)", "x <- 1", "tests/testthat/test-a.R", "R/a.R"},
	"yaml":       {"config.yml", "url: http://x/#frag # yes\n", []string{"# yes"}, "", "a: 1", "", "config.yml"},
	"toml":       {"config.toml", "a = \"#no\" # yes\n", []string{"# yes"}, "", "a = 1", "", "config.toml"},
	"make":       {"Makefile", "all: # yes\n", []string{"# yes"}, "", "all:", "", "Makefile"},
	"dockerfile": {"Dockerfile", "# yes\nRUN echo '#no'\n", []string{"# yes"}, "", "FROM x", "", "Dockerfile"},
}

// TestTable checks the table itself: unique names and extensions, lower
// case extensions, and a test case for every row and no case without one.
func TestTable(t *testing.T) {
	exts, names := map[string]string{}, map[string]string{}
	for _, l := range All() {
		if _, dup := names[l.Name]; dup {
			t.Errorf("row %q appears twice", l.Name)
		}
		names[l.Name] = l.Name
		for _, e := range l.Extensions {
			if other, dup := exts[e]; dup {
				t.Errorf("extension %s is in rows %s and %s", e, other, l.Name)
			}
			if e != strings.ToLower(e) || !strings.HasPrefix(e, ".") {
				t.Errorf("row %s: extension %q must be lower case with a dot", l.Name, e)
			}
			exts[e] = l.Name
		}
		for _, f := range l.Filenames {
			if other, dup := names["file:"+f]; dup {
				t.Errorf("file name %s is in rows %s and %s", f, other, l.Name)
			}
			names["file:"+f] = l.Name
		}
		if _, ok := rowCases[l.Name]; !ok {
			t.Errorf("row %s has no test case in rowCases", l.Name)
		}
		if ByName(l.Name) != l {
			t.Errorf("ByName(%q) does not return its row", l.Name)
		}
	}
	for name := range rowCases {
		if ByName(name) == nil {
			t.Errorf("test case %s names no row", name)
		}
	}
}

func TestRows(t *testing.T) {
	for name, tc := range rowCases {
		t.Run(name, func(t *testing.T) {
			l := Of(tc.path)
			if l == nil || l.Name != name {
				t.Fatalf("Of(%q) = %v, want %s", tc.path, l, name)
			}
			if got := l.Comments(tc.src); !slices.Equal(got, tc.comments) {
				t.Errorf("Comments = %q, want %q", got, tc.comments)
			}
			if tc.imp != "" && !l.IsImportLine(tc.imp) {
				t.Errorf("IsImportLine(%q) = false", tc.imp)
			}
			if l.IsImportLine(tc.notImp) {
				t.Errorf("IsImportLine(%q) = true", tc.notImp)
			}
			if tc.test != "" && !IsTestFile(tc.test) {
				t.Errorf("IsTestFile(%q) = false", tc.test)
			}
			if IsTestFile(tc.notTest) {
				t.Errorf("IsTestFile(%q) = true", tc.notTest)
			}
		})
	}
}

func TestOf(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"a.MTS", "typescript"}, {"a.cts", "typescript"}, {"x/y.tsx", "typescript"}, {"a.jsx", "javascript"},
		{"a.cjs", "javascript"}, {"a.php", "php"}, {"a.h", "c"}, {"a.hpp", "cpp"}, {"a.kts", "kotlin"},
		{"a.yaml", "yaml"}, {"Cargo.toml", "toml"}, {"ci/Jenkinsfile", "groovy"}, {"a.R", "r"},
		{"README", ""}, {"", ""}, {".go", "go"}, {"a.go/", "go"}, {"a.", ""}, {"dir.go/file", ""},
	} {
		got := ""
		if l := Of(tc.path); l != nil {
			got = l.Name
		}
		if got != tc.want {
			t.Errorf("Of(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestIsTestFile(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"a_test.go", true}, {"a.go", false}, {"test/a.go", false}, {"pkg/testdata/x.go", true},
		{"internal/testdata/out.golden", true}, {"a.golden", true},
		{"test_a.py", true}, {"a_test.py", true}, {"conftest.py", true}, {"tests/a.py", true}, {"pkg/test/a.py", true},
		{"pkg/testing.py", false}, {"pkg/attest.py", false},
		{"a.test.js", true}, {"a.spec.tsx", true}, {"src/__tests__/a.ts", true}, {"src/__snapshots__/a.ts.snap", true},
		{"src/contest.ts", false},
		{"src/test/java/a/B.java", true}, {"a/BTest.java", true}, {"a/BTests.java", true}, {"a/BIT.java", true},
		{"src/main/java/a/B.java", false}, {"src/main/java/a/Contest.java", false},
		{"a/BTest.kt", true}, {"crate/tests/it.rs", true}, {"crate/benches/b.rs", true}, {"src/main.rs", false},
		{"test_a.c", true}, {"a_test.cc", true}, {"tests/a.c", true}, {"src/a.c", false},
		{"a_spec.rb", true}, {"spec/a.rb", true}, {"test/a.rb", true}, {"lib/a.rb", false},
		{"UserTest.php", true}, {"tests/A.php", true}, {"src/A.php", false},
		{"Tests/A.swift", true}, {"README.md", false}, {"", false}, {"/", false}, {"../../etc/passwd", false},
		{"TESTS/a.py", true}, {"a\x00_test.go", true}, {`a\tests\b.py`, false},
		{"pkg/fixtures/users.json", true}, {"src/__fixtures__/a.ts", true}, {"cases/expected/out.txt", true},
		{"golden/render.html", false}, {"src/snapshots/a.txt", true}, {"a.approved.txt", true}, {"a.received.json", true},
		{"pkg/expectedvalue.go", false}, {"src/fixture.go", false}, {"src/snapshot.rs", false},
	} {
		if got := IsTestFile(tc.path); got != tc.want {
			t.Errorf("IsTestFile(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestIsTestDataAndHelper(t *testing.T) {
	for _, tc := range []struct {
		path         string
		data, helper bool
	}{
		{"pkg/testdata/in.txt", true, false}, {"x/__snapshots__/a.test.js.snap", true, false},
		{"render.golden", true, false}, {"Expected/out.json", true, false}, {"a.approved.png", true, false},
		{"a_test.go", false, false}, {"src/app.ts", false, false}, {"approved.go", false, false},
		{"src/test-utils.ts", false, true}, {"src/testUtils.js", false, true}, {"pkg/testutil.go", false, true},
		{"lib/test_helpers.rb", false, true}, {"src/main/java/a/DbTestUtils.java", false, true},
		{"src/utils.ts", false, false}, {"pkg/util.go", false, false},
	} {
		if got := IsTestData(tc.path); got != tc.data {
			t.Errorf("IsTestData(%q) = %v, want %v", tc.path, got, tc.data)
		}
		if got := IsTestHelper(tc.path); got != tc.helper {
			t.Errorf("IsTestHelper(%q) = %v, want %v", tc.path, got, tc.helper)
		}
		if tc.data && !IsTestFile(tc.path) {
			t.Errorf("IsTestFile(%q) = false for test data", tc.path)
		}
	}
}

func TestConfigs(t *testing.T) {
	for _, tc := range []struct {
		path     string
		test, ci bool
	}{
		{"pytest.ini", true, false}, {"tox.ini", true, false}, {"pkg/conftest.py", true, false},
		{"jest.config.ts", true, false}, {"vitest.config.mts", true, false}, {"karma.conf.js", true, false},
		{".mocharc.yml", true, false}, {"phpunit.xml.dist", true, false}, {".nycrc.json", true, false},
		{"codecov.yml", true, false}, {".coveragerc", true, false},
		{"setup.cfg", false, false}, {"pyproject.toml", false, false}, {"package.json", false, false},
		{".github/workflows/ci.yml", false, true}, {".github/actions/setup/action.yml", false, true},
		{".gitlab-ci.yml", false, true}, {".gitlab/ci/lint.yml", false, true}, {".circleci/config.yml", false, true},
		{"Jenkinsfile", false, true}, {"azure-pipelines.yml", false, true}, {".travis.yml", false, true},
		{".buildkite/pipeline.yml", false, true}, {"bitbucket-pipelines.yml", false, true}, {".drone.yml", false, true},
		{".woodpecker.yml", false, true}, {".woodpecker/build.yml", false, true}, {".pre-commit-config.yaml", false, true},
		{".golangci.yml", false, true}, {".golangci.yaml", false, true}, {".eslintrc.json", false, true},
		{"web/.eslintrc.cjs", false, true}, {"eslint.config.mjs", false, true}, {"ruff.toml", false, true},
		{".ruff.toml", false, true}, {".flake8", false, true}, {"mypy.ini", false, true}, {".clang-tidy", false, true},
		{"./.github/workflows/x.yml", false, true}, {"a/../.github/workflows/x.yml", false, true},
		{".github/dependabot.yml", false, false}, {"src/workflows/x.yml", false, false}, {"main.go", false, false},
		{"", false, false},
	} {
		if got := IsTestConfig(tc.path); got != tc.test {
			t.Errorf("IsTestConfig(%q) = %v, want %v", tc.path, got, tc.test)
		}
		if got := IsCIConfig(tc.path); got != tc.ci {
			t.Errorf("IsCIConfig(%q) = %v, want %v", tc.path, got, tc.ci)
		}
	}
}

func FuzzPaths(f *testing.F) {
	for _, p := range []string{"a_test.go", ".github/workflows/x.yml", "src/test/A.java", "../x", "//", "a/./b/../c.py", "\x00.go"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		l := Of(p)
		if l != Of(p) {
			t.Fatal("Of is not deterministic")
		}
		if l != nil && l.Name == "" {
			t.Fatal("row without a name")
		}
		a, b, c := IsTestFile(p), IsTestConfig(p), IsCIConfig(p)
		if a != IsTestFile(p) || b != IsTestConfig(p) || c != IsCIConfig(p) {
			t.Fatal("path predicates are not deterministic")
		}
		_ = path.Clean(p)
	})
}

func ExampleOf() {
	l := Of("web/src/app.mts")
	fmt.Println(l.Name, l.Comments("const url = 'http://x'; // the endpoint\n"))
	fmt.Println(l.IsImportLine(`import { x } from "./x.js"`))
	// Output:
	// typescript [// the endpoint]
	// true
}

func ExampleIsTestFile() {
	for _, p := range []string{"pkg/parse_test.go", "pkg/parse.go", "src/test/java/a/BTest.java", "tests/test_api.py"} {
		fmt.Println(p, IsTestFile(p))
	}
	// Output:
	// pkg/parse_test.go true
	// pkg/parse.go false
	// src/test/java/a/BTest.java true
	// tests/test_api.py true
}

package integrity

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
)

const rustCheckTest = `//! Parsing tests.
use std::collections::HashMap;
use std::fmt::{self, Write};
use semver::{Version, parse};

fn fixture() -> HashMap<&'static str, u64> {
    let spare = 5;
    let mut map = HashMap::new();
    map.insert("a", 1);
    map
}

#[test]
fn parses_major() {
    let unused = "1.2.3";
    let extra: Vec<u8> = Vec::with_capacity(8);
    let v = parse("1.2.3").unwrap();
    assert_eq!(v.major, 1, "major of {}", v);
    assert!(v.minor >= 2);
    assert_ne!(v, Version::new(0, 0, 0));
}

#[test]
#[should_panic(expected = "empty")]
fn rejects_empty() {
    let label = "empty";
    parse("").expect(label);
}

#[test]
#[ignore]
fn slow() {
    let n = fixture().len();
    if n == 0 {
        panic!("no fixture");
    }
    let mut out = String::new();
    write!(out, "{n}").unwrap();
}
`

func rustEdit(t *testing.T, src, old, new string) string {
	t.Helper()
	if !strings.Contains(src, old) {
		t.Fatalf("the test file has no %q", old)
	}
	return strings.Replace(src, old, new, 1)
}

// rustUnused is rustc's report of an unused import.
func rustUnused(path string) []contract.BugReport {
	return []contract.BugReport{{Message: "unused import: `" + path + "`"}}
}

// TestRustChecksKept: a Rust test file's edit is proven to keep its
// checks when it removes dead bindings of literals, renames an unused
// binding as rustc proposes, removes use items a report calls unused or
// adds one a report asks for; any change of an assertion, an expected
// value, a test attribute, a test function, a comment or of what runs
// is no proof.
func TestRustChecksKept(t *testing.T) {
	src := rustCheckTest
	noTrait := strings.Replace(src, "use std::fmt::{self, Write};\n", "use std::fmt;\n", 1)
	for _, tc := range []struct {
		name          string
		orig, patched string
		reports       []contract.BugReport
		kept          bool
	}{
		{"unchanged", src, src, nil, false},
		{"layout alone", src, src + "\n\n", nil, false},
		{"dead literal removed", src, rustEdit(t, src, "    let unused = \"1.2.3\";\n", ""), nil, true},
		{"dead literal in a helper removed", src, rustEdit(t, src, "    let spare = 5;\n", ""), nil, true},
		{"unused binding renamed as rustc proposes", src, rustEdit(t, src, "let extra: Vec<u8>", "let _extra: Vec<u8>"), nil, true},
		{"unused binding of a call removed", src, rustEdit(t, src, "    let extra: Vec<u8> = Vec::with_capacity(8);\n", ""), nil, false},
		{"unused binding made a statement", src, rustEdit(t, src, "let extra: Vec<u8> = ", ""), nil, false},
		{"unused binding made _", src, rustEdit(t, src, "let extra: Vec<u8>", "let _: Vec<u8>"), nil, false},
		{"unused binding's type changed", src, rustEdit(t, src, "let extra: Vec<u8>", "let _extra: Vec<u16>"), nil, false},
		{"unused import removed", src, rustEdit(t, src, "use std::collections::HashMap;\n", ""), rustUnused("std::collections::HashMap"), false}, // HashMap is used
		{"unused name of a group removed", src, rustEdit(t, src, "use std::fmt::{self, Write};", "use std::fmt::Write;"), rustUnused("self"), false},
		{"unused import removed with its report", noTrait, rustEdit(t, noTrait, "use std::fmt;\n", ""), rustUnused("std::fmt"), true},
		{"unused import removed with no report", noTrait, rustEdit(t, noTrait, "use std::fmt;\n", ""), nil, false},
		{"used import removed", src, rustEdit(t, src, "use semver::{Version, parse};", "use semver::parse;"), rustUnused("semver::Version"), false},
		{"import added for a name a report says is missing", noTrait, rustEdit(t, noTrait, "use std::fmt;\n", "use std::fmt;\nuse std::fmt::Write;\n"),
			[]contract.BugReport{{Message: "cannot find trait `Write` in this scope"}}, true},
		{"import added with no report", noTrait, rustEdit(t, noTrait, "use std::fmt;\n", "use std::fmt;\nuse std::fmt::Write;\n"), nil, false},
		{"assertion swapped by an import", src, rustEdit(t, src, "use std::collections::HashMap;\n", "use std::collections::HashMap;\nuse lenient::assert_eq;\n"),
			[]contract.BugReport{{Message: "cannot find macro `assert_eq` in this scope"}}, false},
		{"expected value changed", src, rustEdit(t, src, "assert_eq!(v.major, 1,", "assert_eq!(v.major, 2,"), nil, false},
		{"assertion loosened", src, rustEdit(t, src, "assert!(v.minor >= 2);", "assert!(v.minor >= 0);"), nil, false},
		{"assert_ne made assert_eq", src, rustEdit(t, src, "assert_ne!(v,", "assert_eq!(v,"), nil, false},
		{"assertion removed", src, rustEdit(t, src, "    assert!(v.minor >= 2);\n", ""), nil, false},
		{"assertion's message changed", src, rustEdit(t, src, `"major of {}"`, `"major {}"`), nil, false},
		{"should_panic's expectation changed", src, rustEdit(t, src, `expected = "empty"`, `expected = ""`), nil, false},
		{"should_panic added", src, rustEdit(t, src, "#[test]\nfn parses_major", "#[test]\n#[should_panic]\nfn parses_major"), nil, false},
		{"ignore added", src, rustEdit(t, src, "#[test]\nfn parses_major", "#[test]\n#[ignore]\nfn parses_major"), nil, false},
		{"ignore removed", src, rustEdit(t, src, "#[ignore]\n", ""), nil, false},
		{"test attribute removed", src, rustEdit(t, src, "#[test]\nfn parses_major", "fn parses_major"), nil, false},
		{"test renamed", src, rustEdit(t, src, "fn slow()", "fn slower()"), nil, false},
		{"panic removed", src, rustEdit(t, src, "        panic!(\"no fixture\");\n", ""), nil, false},
		{"comment changed", src, rustEdit(t, src, "//! Parsing tests.", "//! Tests."), nil, false},
		{"early return added", src, rustEdit(t, src, "    let unused = \"1.2.3\";\n", "    return;\n"), nil, false},
		{"live binding removed", src, rustEdit(t, src, "    let label = \"empty\";\n", ""), nil, false},
		{"binding read by a format string removed", src, rustEdit(t, src, "    let n = fixture().len();\n", ""), nil, false},
		{"does not lex", src, rustEdit(t, src, `parse("")`, `parse(")`), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rustChecksKept(tc.orig, tc.patched, tc.reports); got != tc.kept {
				t.Errorf("rustChecksKept = %v, want %v", got, tc.kept)
			}
		})
	}
}

// TestRustDeadNeedsAnUnreadLocal: a binding is dead only inside a
// function body that reads its name nowhere else, bound by a plain let
// at a statement's start.
func TestRustDeadNeedsAnUnreadLocal(t *testing.T) {
	for _, tc := range []struct {
		name, orig, patched string
		kept                bool
	}{
		{"never read", "fn t() {\n    let n = 1 + 2;\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", true},
		{"read by a closure", "fn t() {\n    let n = 1;\n    let g = || n;\n    assert_eq!(g(), 1);\n}\n",
			"fn t() {\n    let g = || n;\n    assert_eq!(g(), 1);\n}\n", false},
		{"shadowed", "fn t() {\n    let n = 1;\n    let n = 2;\n    assert_eq!(n, 2);\n}\n", "fn t() {\n    let n = 2;\n    assert_eq!(n, 2);\n}\n", false},
		{"a struct's shorthand field", "fn t() {\n    let x = 1;\n    assert!(ok(P { x }));\n}\n", "fn t() {\n    assert!(ok(P { x }));\n}\n", false},
		{"a const item", "const N: u8 = 1;\nfn t() {\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", false},
		{"a pattern", "fn t() {\n    let (a, b) = (1, 2);\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", false},
		{"let-else", "fn t() {\n    let n = 1 else { return };\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", false},
		{"after an attribute", "fn t() {\n    #[allow(unused)]\n    let n = 1;\n    assert!(f());\n}\n", "fn t() {\n    #[allow(unused)]\n    assert!(f());\n}\n", false},
		{"a macro's value", "fn t() {\n    let n = vec![1];\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", false},
		{"a use inside a function", "fn t() {\n    use std::fmt;\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", false},
		{"a use removed a report names", "fn t() {\n    use std::fmt;\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", true},
		{"a glob import", "use super::*;\nfn t() {\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", false},
		{"a re-export", "pub use a::b;\nfn t() {\n    assert!(f());\n}\n", "fn t() {\n    assert!(f());\n}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reports []contract.BugReport
			if tc.name == "a use removed a report names" {
				reports = rustUnused("std::fmt")
			}
			if got := rustChecksKept(tc.orig, tc.patched, reports); got != tc.kept {
				t.Errorf("rustChecksKept = %v, want %v", got, tc.kept)
			}
		})
	}
}

// TestCheckRustTestFile: through Check, a Rust test file's edit the
// proof holds for breaks no rule; one that weakens a check still breaks
// test-file and the rule of what it weakens.
func TestCheckRustTestFile(t *testing.T) {
	path := "tests/parse.rs"
	kept := Check(Input{Path: path, Original: rustCheckTest, Patched: rustEdit(t, rustCheckTest, "let extra: Vec<u8>", "let _extra: Vec<u8>"),
		Reports: []contract.BugReport{{FilePath: path, LineNumber: 16, Message: "unused variable: `extra`"}}})
	if len(kept) != 0 {
		t.Errorf("an unused binding's rename breaks %v", kept)
	}
	weak := Check(Input{Path: path, Original: rustCheckTest, Patched: rustEdit(t, rustCheckTest, "assert_eq!(v.major, 1,", "assert_eq!(v.major, 2,")})
	if !hasRule(weak, RuleTestFile) {
		t.Errorf("a changed expected value breaks %v, want test-file", weak)
	}
}

func FuzzRustChecksKept(f *testing.F) {
	f.Add(rustCheckTest, strings.Replace(rustCheckTest, "    let unused = \"1.2.3\";\n", "", 1))
	f.Add(rustCheckTest, strings.Replace(rustCheckTest, "let extra", "let _extra", 1))
	f.Add("fn t() { let n = r#\"a\"#; }", "fn t() { }")
	f.Add("use a::{b, c as d};", "use a::b;")
	f.Fuzz(func(t *testing.T, a, b string) {
		if rustChecksKept(a, b, nil) {
			if _, ok := lang.TokensRust(a); !ok {
				t.Fatal("a proof from a text the lexer refuses")
			}
			if _, ok := lang.TokensRust(b); !ok {
				t.Fatal("a proof of a text the lexer refuses")
			}
		}
	})
}

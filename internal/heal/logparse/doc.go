// Package logparse is salve's Parser layer: it reads a raw,
// combined build log and returns the located errors in it as
// [contract.BugReport] values. It is deterministic: there is no LLM and no
// network, only regular expressions and heuristics, and the same log always
// gives byte-identical output.
//
// It imports only the standard library and contract (a test enforces it).
//
// # How it reads a log
//
// [Parse] makes one streaming pass. Each line is cleaned (ANSI colour, CR
// overprinting and CRLF; the line prefixes of GitHub Actions and Azure
// timestamps and problem-matcher echoes, GitLab's timestamps and section
// markers, Jenkins' timestamper and console notes, TeamCity, Travis folds and
// Docker BuildKit's "#N 0.123"); `go test -json` events are unwrapped into
// the lines they carry. The lines are then offered to the multi-line
// handlers (tracebacks, rustc blocks, go test, test runners, stack
// traces), and otherwise to the single-line rows of the table, in order.
// Memory is bounded by [MaxLineLength], [Options.MaxReports], the handlers'
// fixed-size buffers and the workspace index, whatever the size of the log.
//
// The table is data: each family file (golang.go, cfamily.go, rust.go,
// java.go, python.go, js.go, shell.go) registers rows with a name, a tool, a
// regular expression with named groups and a classifier. [Rows] returns it,
// and `salve parse --list` prints it. Every row has at least one case in
// testdata/corpus that it reads (TestEveryRowHasFixtures), and names are
// unique (register panics).
//
// # Paths
//
// Reports carry repo-relative, forward-slash paths. Absolute paths are made
// relative with [Options.Root], or else with the known CI checkout roots
// (/home/runner/work/R/R, /__w/R/R, /github/workspace, /builds/G/P,
// Jenkins and Azure workspaces, /drone/src, /workspace/NAME) or a root
// learned from the log (a Go frame's package path against its directory).
// With [Options.Workspace], the checkout's files are indexed and a path that
// does not exist there is matched by its longest suffix (this maps container
// roots and Java frames, which name only package and file). Relative paths
// follow make's "Entering directory" and `cd dir && tool` in echoed commands,
// and go test's per-package file names are joined to the package directory.
// Code that is not the workspace's is dropped: the standard libraries, the
// GOROOT, site-packages and dist-packages, node_modules, the cargo registry
// and rustup, the Go module cache, system headers, the JDK and Maven caches.
// When Root is set, absolute paths outside it are dropped too.
//
// # What each error type means here
//
//   - SYNTAX: parse errors: gcc/clang "expected ';'", javac "';' expected",
//     Go "syntax error", rustc errors without a code that are not lints,
//     tsc TS1xxx, Python SyntaxError (and flake8 E999, pylint E0001, ruff
//     SyntaxError), ESLint "Parsing error", node and babel SyntaxError,
//     shellcheck SC1xxx errors, bash "syntax error", make's unterminated
//     references, CMake "Parse error". After a SYNTAX report, more SYNTAX
//     reports in the same file within 25 lines, or at end of file, are
//     cascades and are dropped.
//   - INDENTATION: Python IndentationError and TabError (and E112, E113,
//     E902 TabError), make's "missing separator" and "recipe commences
//     before first target".
//   - IMPORT: missing, unresolvable or unused imports, whoever reports
//     them: Go "imported and not used" and "no required module provides",
//     missing C/C++ headers, rustc E0432/E0433 (crate or module)/E0463/E0583,
//     "unused import" lints, Python ImportError and ModuleNotFoundError,
//     flake8 F401, pylint W0611/E0401/E0611, mypy [import-*], tsc
//     TS2307/TS2305/TS7016 and TS6133 on an import line (read from the
//     workspace when given), node "Cannot find module", javac "package ...
//     does not exist", Java ClassNotFoundException, CMake find_package
//     and missing sources.
//   - TYPE_ERROR: compile-time semantic errors: type mismatches, undefined
//     names or members, wrong argument counts, linker undefined references,
//     Go "declared and not used", rustc E0xxx codes by default, tsc TS2xxx
//     and TS7xxx, mypy errors, javac "cannot find symbol". Linter findings
//     of undefined names (flake8 F821, pylint E0602/E1101/E1120, ESLint
//     no-undef) are TYPE_ERROR too, because the defect is the undefined
//     name. Run-time errors that are undefined names or wrong calls in
//     dynamic languages (Python NameError, UnboundLocalError, TypeError about
//     arguments, AttributeError not on None; JavaScript ReferenceError and
//     "is not a function") are TYPE_ERROR: they are what a compiler would
//     have caught. bash "command not found" is an undefined name.
//   - LINTING: linter and vet findings (go vet, staticcheck, golangci-lint,
//     clippy and denied rustc lints, flake8/ruff/pylint codes other than the
//     above, ESLint rules, shellcheck SC2xxx, tsc unused locals) and
//     warnings promoted to errors (-Werror in gcc/clang, javac -Werror,
//     #![deny(warnings)]). Plain compiler warnings did not fail the build
//     and are not reported; linter warnings (ESLint, shellcheck, clippy's
//     own lints, flake8 and pylint) are, as LINTING.
//   - LOGIC: failing tests and assertions, panics and exceptions at run
//     time. The location is the assertion (go test's t.Errorf line,
//     pytest's failing line, the test frame of a JUnit failure) or the
//     deepest stack frame inside the workspace (Go goroutine traces,
//     Python tracebacks, Java and JavaScript stacks, Rust "panicked at").
//     The JavaScript test runners (jest, vitest, mocha, uvu, ava, node-tap
//     and node:test, in their default reporters) name the failing test; an
//     error they print without its class (uvu's "x is not defined") is
//     classified by the engine's wording.
//     Java NoSuchMethodError and ClassCastException are TYPE_ERROR,
//     ClassNotFoundException IMPORT. C and C++ at run time: assert()
//     failures, UBSan's "runtime error", and the first workspace frame of
//     an AddressSanitizer or MemorySanitizer report, of each direct leak
//     LeakSanitizer finds, and of both accesses of a ThreadSanitizer or Go
//     race; GoogleTest, Catch2, Unity and Check failure lines. A chain of
//     exceptions is reported at its root cause: Java's last "Caused by:"
//     (its deepest workspace frame, through "... N more"), Python's first
//     traceback (later links too, unless their deepest workspace frame is a
//     deliberate raise). A Python exception group reports each
//     sub-exception. A go test timeout reports the deepest workspace frame
//     of the goroutine running the test that timed out; fuzzing failures
//     carry the failing input file in their message.
//   - The dynamic languages follow Python's rules: Ruby NoMethodError and
//     NameError, ArgumentError about arguments and TypeError not about nil
//     are TYPE_ERROR, LoadError is IMPORT, a nil receiver is LOGIC; PHP
//     calls to undefined functions or methods, missing classes and wrong
//     argument types are TYPE_ERROR, a failed require is IMPORT, "on null"
//     is LOGIC. .NET: C# CS1xxx parse errors are SYNTAX, CS0246/CS0234 and
//     unnecessary usings IMPORT, analyzers (CA, IDE, SA) LINTING; MSVC's
//     C1083 is IMPORT and C2220 (a warning made an error) LINTING;
//     InvalidCastException and MissingMethodException are TYPE_ERROR.
//
// A message that no family rule settles goes through one shared keyword
// classifier (rows.go), in the order INDENTATION, IMPORT, SYNTAX,
// TYPE_ERROR, with the row's default after that.
//
// # Duplicates and cascades
//
// Every distinct error is a report, several on one line included: a Go
// line using strings and strconv unimported gives two "undefined" reports,
// as do two javac "cannot find symbol", two tsc TS2304 or two linter rules
// on one line. A report that repeats an earlier one is dropped: same file,
// line and error type, the same message, and the same column when both
// know theirs (its test name, if the first lacked one, is kept). So an
// error printed by go vet, go build and go test in turn, a gcc error
// repeated by make, Maven's and MSBuild's recaps, a second cargo run, a
// node:test failure repeated in the summary and a testify line found both
// ways appear once. javac prints no column, but puts a caret under it on
// the line after the source line; the caret gives the report its column.
// Notes, "In file included from" chains, "aborting due to previous
// errors", "N errors" counts and test runners' summaries are never
// reports; neither is the source line bash quotes after a syntax error,
// nor CMake's "No SOURCES given to target" after the target's sources
// were not found. In go test, the t.Log lines of passing tests are
// dropped (their verdict is read first, in -v streams too); of a failing
// test's lines, those that read like assertions are kept, or the last one.
//
// # Confidence
//
// ConfidenceScore estimates the probability that the line named is where
// the fix goes, and is calibrated by tool and shape:
//
//	0.95  a compiler or type checker's own file:line[:col] diagnostic
//	0.90  a linter finding with a rule; a go test assertion line; pytest's
//	      failing line
//	0.85  a test runner's frame for a named failing test; cmake, bash,
//	      ld with debug info; a traceback's import error
//	0.80  a Go panic's or an uncaught JavaScript error's deepest frame
//	0.75  the deepest workspace frame of a run-time exception
//	0.60  a linker error without debug info, placed at the symbol's first
//	      call in the file (read from the workspace)
//
// It is then multiplied by 0.9 when the path was matched by suffix against
// the workspace, and by 0.7 when the path could not be confirmed at all
// (no root, no workspace, an absolute path kept as it is).
//
// # Quality
//
// testdata/corpus holds one folder per case: log.txt recorded by running
// the real tool on the small broken project in src/ (scripts/corpus/
// generate.sh rebuilds them), expected.json written by hand from the
// broken sources, meta.json (tool, command, root; synthetic and its source
// for the few formats whose tool could not run here) and golden.txt.
// [ScoreCorpus] (and `salve parse --score DIR`) reports recall and precision
// on (file_path, line_number), counted with multiplicity (a line with two
// expected errors wants two reports), type accuracy and exact cases; the test
// suite holds them at recall >= 0.99, precision >= 0.98 and type accuracy
// >= 0.97.
package logparse

package target

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// callCases are failing tests of the lexical languages whose code under
// test is reached through the test's calls: each asserts every region
// returned, in order.
var callCases = []struct {
	name string
	ws   string
	bug  contract.BugReport
	want []want
}{
	{name: "c/header-to-source", ws: "clib",
		bug:  contract.BugReport{FilePath: "tests/test_calc.c", LineNumber: 13, Message: "test_calc: tests/test_calc.c:13: test_add: Assertion `add(2, 3) == 5' failed."},
		want: []want{{"src/calc.c", 8, 11, "add", "called by test_add (lexical, declared in include/calc.h)"}}},
	{name: "c/through-helper", ws: "clib",
		bug:  contract.BugReport{FilePath: "tests/test_calc.c", LineNumber: 8, Message: "Assertion `sub(a, b) == want' failed.", TestName: strp("test_sub")},
		want: []want{{"src/calc.c", 13, 17, "sub", "called by check_sub (lexical, declared in include/calc.h)"}}},
	{name: "c/helper-from-test", ws: "clib",
		bug:  contract.BugReport{FilePath: "tests/test_calc.c", LineNumber: 18, Message: "Aborted"},
		want: []want{{"src/calc.c", 13, 17, "sub", "called by test_sub through check_sub (lexical, declared in include/calc.h)"}}},
	{name: "c/macro", ws: "clib",
		bug: contract.BugReport{FilePath: "tests/test_calc.c", LineNumber: 23, Message: "Assertion `CALC_SQUARE(3) == 9' failed."},
		// calc_mul delegates to add: a wrong sum there fails this test too.
		want: []want{
			{"src/calc.c", 19, 26, "calc_mul", "called by test_square through CALC_SQUARE (lexical, declared in include/calc.h)"},
			{"src/calc.c", 8, 11, "add", "called by calc_mul"},
		}},
	{name: "cpp/gtest-method", ws: "cppproj",
		bug: contract.BugReport{FilePath: "tests/rect_test.cpp", LineNumber: 7, TestName: strp("RectTest.Area"),
			Message: "tests/rect_test.cpp:7: Failure\nExpected equality of these values:\n  r.area()\n    Which is: 5\n  6"},
		want: []want{{"src/rect.cpp", 7, 11, "Rect::area", "called by Area (lexical, declared in include/shapes/rect.hpp)"}}},
	{name: "cpp/inline-in-header", ws: "cppproj",
		bug:  contract.BugReport{FilePath: "tests/rect_test.cpp", LineNumber: 12, TestName: strp("RectTest.Perimeter"), Message: "Which is: 5"},
		want: []want{{"include/shapes/rect.hpp", 9, 9, "Rect::perimeter", "called by Perimeter (lexical, declared in include/shapes/rect.hpp)"}}},
	{name: "java/field-receiver", ws: "mvnproj",
		bug:  contract.BugReport{FilePath: "src/test/java/org/example/calc/CalculatorTest.java", LineNumber: 21, TestName: strp("addsTwoNumbers"), Message: "org.opentest4j.AssertionFailedError: expected: <5> but was: <-1>"},
		want: []want{{"src/main/java/org/example/calc/Calculator.java", 17, 19, "Calculator.add", "called by addsTwoNumbers (lexical)"}}},
	{name: "java/chained-new", ws: "mvnproj",
		bug: contract.BugReport{FilePath: "src/test/java/org/example/calc/CalculatorTest.java", LineNumber: 26, Message: "expected: <2> but was: <18>"},
		want: []want{
			{"src/main/java/org/example/calc/Calculator.java", 21, 26, "Calculator.divide", "called by dividesOnAFreshInstance (lexical)"},
			{"src/main/java/org/example/calc/Calculator.java", 9, 11, "Calculator.Calculator", "called by dividesOnAFreshInstance (lexical)"},
		}},
	{name: "java/static-import", ws: "mvnproj",
		bug:  contract.BugReport{FilePath: "src/test/java/org/example/calc/CalculatorTest.java", LineNumber: 32, TestName: strp("org.example.calc.CalculatorTest.clampsToRange"), Message: "expected: <10> but was: <0>"},
		want: []want{{"src/main/java/org/example/calc/util/MathUtil.java", 7, 9, "MathUtil.clamp", "called by clampsToRange (lexical)"}}},
	{name: "java/conventional-class", ws: "mvnproj",
		bug: contract.BugReport{FilePath: "src/test/java/org/example/calc/CalculatorTest.java", LineNumber: 39, Message: "expected: <3> but was: <-1>"},
		want: []want{
			{"src/main/java/org/example/calc/Calculator.java", 17, 19, "Calculator.add", "called by chainsFromTheFactory (lexical)"},
			{"src/main/java/org/example/calc/Calculator.java", 9, 11, "Calculator.Calculator", "called by Calculator.create"},
			{"src/main/java/org/example/calc/Calculator.java", 13, 15, "Calculator.create", "called by chainsFromTheFactory (lexical)"},
		}},
	{name: "rust/integration-methods", ws: "rustcrate",
		bug: contract.BugReport{FilePath: "tests/account.rs", LineNumber: 8, TestName: strp("deposit_adds_to_balance"),
			Message: "thread 'deposit_adds_to_balance' panicked at tests/account.rs:8:5:\nassertion `left == right` failed\n  left: 50\n right: 150"},
		want: []want{
			{"src/account.rs", 16, 18, "account::Account::balance", "called by deposit_adds_to_balance (lexical)"},
			{"src/account.rs", 12, 14, "account::Account::deposit", "called by deposit_adds_to_balance (lexical)"},
			{"src/account.rs", 8, 10, "account::Account::new", "called by deposit_adds_to_balance (lexical)"},
		}},
	{name: "rust/reexport-alias", ws: "rustcrate",
		bug:  contract.BugReport{FilePath: "tests/account.rs", LineNumber: 13, Message: "thread 'fee_for_small_transfer' panicked at tests/account.rs:13:5:\nassertion `left == right` failed\n  left: 50\n right: 5"},
		want: []want{{"src/fees.rs", 2, 8, "fees::transfer_fee", "called by fee_for_small_transfer (lexical)"}}},
	{name: "rust/crate-path", ws: "rustcrate",
		bug:  contract.BugReport{FilePath: "tests/account.rs", LineNumber: 19, Message: "assertion `left == right` failed"},
		want: []want{{"src/lib.rs", 8, 10, "round_cents", "called by rounds_by_crate_path (lexical)"}}},
	{name: "rust/inline-super", ws: "rustcrate",
		bug:  contract.BugReport{FilePath: "src/lib.rs", LineNumber: 22, TestName: strp("tests::rounds_down"), Message: "thread 'tests::rounds_down' panicked at src/lib.rs:22:9:\nassertion `left == right` failed\n  left: 25\n right: 2"},
		want: []want{{"src/lib.rs", 8, 10, "round_cents", "called by rounds_down (lexical)"}}},
	{name: "rust/inline-glob-methods", ws: "rustcrate",
		bug: contract.BugReport{FilePath: "src/account.rs", LineNumber: 35, TestName: strp("account::tests::deposit_then_read"), Message: "thread 'account::tests::deposit_then_read' panicked at src/account.rs:35:9:\nassertion `left == right` failed"},
		want: []want{
			{"src/account.rs", 16, 18, "account::Account::balance", "called by deposit_then_read (lexical)"},
			{"src/account.rs", 12, 14, "account::Account::deposit", "called by deposit_then_read (lexical)"},
			{"src/account.rs", 8, 10, "account::Account::new", "called by deposit_then_read (lexical)"},
		}},
	{name: "ts/class-method-through-index", ws: "tsproj",
		bug: contract.BugReport{FilePath: "test/cart.test.ts", LineNumber: 9, TestName: strp("Cart > sums its lines"),
			Message: "AssertionError: expected -350 to be 350 // Object.is equality\n ❯ test/cart.test.ts:9:26"},
		want: []want{
			{"src/cart/cart.ts", 14, 17, "Cart.total", "called by the test (lexical)"},
			{"src/cart/cart.ts", 9, 12, "Cart.add", "called by the test (lexical)"},
		}},
	{name: "ts/static-method", ws: "tsproj",
		bug:  contract.BugReport{FilePath: "test/cart.test.ts", LineNumber: 13, Message: "AssertionError: expected -0 to be +0"},
		want: []want{{"src/cart/cart.ts", 19, 21, "Cart.empty", "called by the test (lexical)"}}},
	// A test module in its own file (`mod tests;` in fees.rs): its super
	// is the file that declares it.
	{name: "rust/module-file-super", ws: "rustcrate",
		bug: contract.BugReport{FilePath: "src/fees/tests.rs", LineNumber: 5, TestName: strp("fees::tests::fee_is_one_percent"),
			Message: "assertion `left == right` failed\n  left: 50\n right: 5"},
		want: []want{{"src/fees.rs", 2, 8, "fees::transfer_fee", "called by fee_is_one_percent (lexical)"}}},
	// A record's parameters follow its name: its block holds methods.
	{name: "java/record-method", ws: "mvnproj",
		bug:  contract.BugReport{FilePath: "src/test/java/org/example/calc/CircleTest.java", LineNumber: 11, Message: "expected: <3.14> but was: <6.28>"},
		want: []want{{"src/main/java/org/example/calc/Circle.java", 6, 8, "Circle.area", "called by unitArea (lexical)"}}},
	// A slip two calls below the test's: the functions of the file that
	// parse reaches follow it, nearest first.
	{name: "ts/reached-through-calls", ws: "tsproj",
		bug: contract.BugReport{FilePath: "test/notes.test.ts", LineNumber: 5, Message: "AssertionError: expected [ 'A', 'B' ] to deeply equal [ 'a', 'b' ]"},
		want: []want{
			{"src/notes.ts", 2, 4, "parse", "called by the test (lexical)"},
			{"src/notes.ts", 6, 8, "parseComment", "called by parse, which the code under test reaches"},
			{"src/notes.ts", 10, 12, "parseNote", "called by parseComment, which the code under test reaches"},
		}},
	// normalise is shared with sortKey, which the test does not reach.
	{name: "ts/shared-helper-left-out", ws: "tsproj",
		bug: contract.BugReport{FilePath: "test/words.test.ts", LineNumber: 5, Message: "AssertionError: expected false to be true"},
		want: []want{
			{"src/words.ts", 9, 12, "isPalindrome", "called by the test (lexical)"},
			{"src/words.ts", 5, 7, "reverse", "called by isPalindrome, which the code under test reaches"},
		}},
	{name: "ts/mts-module", ws: "tsproj",
		bug:  contract.BugReport{FilePath: "test/cart.test.ts", LineNumber: 17, Message: "expected '$12.5' to be '$12.05'"},
		want: []want{{"src/money.mts", 1, 3, "formatCents", "called by the test (lexical)"}}},
}

func TestResolveCalls(t *testing.T) {
	for _, tc := range callCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(context.Background(), filepath.Join("testdata", tc.ws), tc.bug, Options{Lexical: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d regions, want %d:\n%s", len(got), len(tc.want), regions(got))
			}
			for i, w := range tc.want {
				if g := got[i]; g.Path != w.Path || g.Start != w.Start || g.End != w.End || g.Symbol != w.Symbol || g.Why != w.Why {
					t.Errorf("region %d = %v\nwant        %s:%d-%d %s (%s)", i, g, w.Path, w.Start, w.End, w.Symbol, w.Why)
				}
			}
			for _, g := range got {
				if isTestFile(g.Path) || strings.Contains(g.Why, "test module") {
					t.Errorf("%v: a test is never a target", g)
				}
				if g.Reached != strings.HasSuffix(g.Why, "which the code under test reaches") {
					t.Errorf("%v: reached %v", g, g.Reached)
				}
			}
		})
	}
}

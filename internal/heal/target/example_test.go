package target_test

import (
	"context"
	"fmt"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/target"
)

// A failed assertion is reported at the test's line; Resolve finds the
// function under test, and TestContext the test itself.
func ExampleResolve() {
	name := "TestAdd"
	bug := contract.BugReport{FilePath: "calc/calc_test.go", LineNumber: 10, ErrorType: contract.ErrLogic,
		Message: "Add(1,2) = -1, want 3", TestName: &name}
	regions, err := target.Resolve(context.Background(), "testdata/gomod", bug, target.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range regions {
		fmt.Println(r)
	}
	test, _ := target.TestContext(context.Background(), "testdata/gomod", bug, target.Options{})
	fmt.Print(test)
	// Output:
	// calc/calc.go:5-7 calc.Add (called by TestAdd)
	// calc/calc_test.go (calc.TestAdd, 8-12; read-only, the failing test):
	//    8 | func TestAdd(t *testing.T) {
	//    9 | 	if got := Add(1, 2); got != 3 {
	//   10 | 		t.Errorf("Add(1,2) = %d, want 3", got)
	//   11 | 	}
	//   12 | }
}

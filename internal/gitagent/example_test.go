package gitagent_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/salve-dev/salve/internal/gitagent"
)

// The heal pipeline's commit step: work on a new branch, roll a file back
// when a fix fails, commit the files of a fix that passed, and push. Every
// call runs one git_agent process and validates its response. (Compiled,
// not run: it needs a repository and the binary.)
func ExampleClient() {
	ctx := context.Background()
	c := gitagent.Client{
		Binary:        "bin/git_agent",
		Dir:           "/path/to/worktree",
		Timeout:       time.Minute,
		NoRegister:    true,
		PlanID:        "7a476b46-3b58-4b09-9afb-1b4c7d9642ce",
		CorrelationID: "8408fdd8-327a-4c26-9c79-8a8d51d8ab0e",
	}
	if err := c.CreateBranch(ctx, "salve/fix-1", "HEAD"); err != nil {
		log.Fatal(err)
	}
	if err := c.Restore(ctx, "main.go"); err != nil { // roll back a failed attempt
		log.Fatal(err)
	}
	hash, err := c.AddCommit(ctx, "fix: close the file on error", "main.go")
	var ae *gitagent.ActionError
	switch {
	case errors.Is(err, gitagent.ErrPathRefused):
		log.Fatal("the fix touched a file outside the repository")
	case errors.As(err, &ae):
		log.Fatalf("git refused (exit %d): %s", ae.ExitCode, ae.Data)
	case err != nil:
		log.Fatal(err) // the agent could not run, timed out, or answered badly
	}
	fmt.Println("committed", hash)
	if err := c.Push(ctx, "origin", "salve/fix-1"); err != nil {
		log.Fatal(err)
	}
}

package server

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// ActionGitShowFile prints one file as a commit holds it: `git show
// REF:FILE` (salve's documented v1 extension, used by salve heal to read
// the repository's configuration from the base branch, never from the
// change under heal or the work tree). FILE is relative to the
// repository's root.
const ActionGitShowFile = "git_show_file"

var showFileSpec = actionSpec{
	name:   ActionGitShowFile,
	doc:    "the content of `files[0]` (relative to the repository root) in commit `ref` (default HEAD)",
	fields: []string{"ref", "files"},
	check:  checkShowFile,
	build: func(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
		return []string{"show", "--no-textconv", "--no-color", "--end-of-options", cmd.Ref + ":" + cmd.Files[0]}, ""
	},
}

// checkShowFile accepts a revision and one clean relative path inside the
// repository.
func checkShowFile(cmd *contract.GitAgentCommandV1) error {
	if cmd.Ref == "" {
		cmd.Ref = "HEAD"
	}
	if err := checkRev(cmd.Ref); err != nil {
		return err
	}
	if strings.Contains(cmd.Ref, ":") {
		return fmt.Errorf("%q must not contain ':'", cmd.Ref)
	}
	if len(cmd.Files) != 1 {
		return errors.New("files: want exactly one path")
	}
	p := cmd.Files[0]
	if err := checkArg(p); err != nil {
		return err
	}
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.ContainsRune(p, '\\') {
		return fmt.Errorf("files: %q is not a clean path relative to the repository root", p)
	}
	return nil
}

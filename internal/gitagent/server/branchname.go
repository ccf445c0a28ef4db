package server

// ValidateBranchName reports whether s is a branch name git_agent accepts:
// git's check-ref-format rules, and no leading '+' or ':' that a push
// could read as a refspec. Callers check names from users or CI
// variables with it before they reach a request.
func ValidateBranchName(s string) error {
	if s == "" {
		return errEmptyBranch
	}
	return checkRefName(s)
}

var errEmptyBranch = branchError("branch name is empty")

type branchError string

func (e branchError) Error() string { return string(e) }

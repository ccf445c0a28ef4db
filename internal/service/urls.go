package service

import (
	"errors"
	"fmt"

	"github.com/salve-dev/salve/internal/gitremote"
)

// checkRepoURL refuses a repository that a job must never carry, whether
// it came from the jobs API or a webhook: credentials in it (a password,
// a token as the user name, a forge token anywhere), which the job record
// would store and the API serve back, and a transport the workers refuse
// (a remote helper, plain http or another scheme: gitremote.Check, the
// policy of git_agent and of the workers). A refused repository that
// carries credentials is never quoted in the message. An empty repository
// is left to Validate.
func checkRepoURL(repo string) error {
	if repo == "" {
		return nil
	}
	if err := gitremote.CheckCredentials(repo); err != nil {
		return fmt.Errorf("%w: repo: %v; give workers their credentials in their environment instead (git credential helpers, ssh keys), never in the URL", ErrBadRequest, err)
	}
	err := gitremote.Check(repo)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gitremote.ErrHelper), errors.Is(err, gitremote.ErrScheme):
		return fmt.Errorf("%w: repo %q uses a refused git transport: %v", ErrBadRequest, repo, err)
	default:
		return fmt.Errorf("%w: repo: %v", ErrBadRequest, err)
	}
}

package heal

// Binaries returns the git_agent and salve binaries built by TestMain,
// for the end-to-end tests of package heal_test.
func Binaries() (gitAgent, salve string) { return gitAgentBin, salveBin }

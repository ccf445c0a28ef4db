package gitguard

// The rule for running git on a repository salve does not trust: every
// git that salve starts on one (the git agent's actions, the queue
// worker's clone and fetch) takes its "-c" settings and environment from
// here, through [Args] and [Env].

// SubmoduleIgnore is the --ignore-submodules mode of every status and diff
// run on an untrusted repository (a status or diff passes it on the
// command line too, since a .gitmodules entry "ignore = none" overrides
// the configuration): changes to the commit a submodule is recorded at
// still show, but git never looks inside the submodule's work tree, so it
// never starts a git command there.
const SubmoduleIgnore = "dirty"

// hardened is given to every git command as "-c key=value", over every
// configuration file. These settings run programs that salve never needs,
// and some of them resolve relative to the work tree (a repository that
// sets core.hooksPath=.husky would run the work tree's scripts):
//
//   - hooks (core.hooksPath) and the file system monitor (core.fsmonitor);
//   - the pager and the editors (never wanted without a terminal);
//   - automatic gc and maintenance, which detach background processes that
//     would outlive the command's caller;
//   - submodule recursion, which runs git in other repositories;
//   - looking into a submodule's work tree: to tell whether a submodule is
//     "dirty", git runs a status in it, which reads the submodule's own
//     configuration and so runs the clean filter or fsmonitor a build or a
//     planted repository set there (see SubmoduleIgnore);
//   - every transport, until a [Transport] allows some.
//
// Filter drivers (filter.*) and diff drivers stay as configured: only the
// user's own configuration can define them when the git directory is
// pinned, and turning off a clean filter such as Git LFS's would commit the
// file itself instead of its pointer. Diffs pass --no-ext-diff and
// --no-textconv.
var hardened = []string{
	"core.hooksPath=/dev/null",
	"core.fsmonitor=false",
	"core.pager=cat",
	"core.editor=false",
	"sequence.editor=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"submodule.recurse=false",
	"fetch.recurseSubmodules=false",
	"push.recurseSubmodules=no",
	"diff.ignoreSubmodules=" + SubmoduleIgnore,
	"diff.submodule=short",
	"status.submoduleSummary=false",
	"protocol.allow=never",
	// A file is unchanged only when all its stat data is: a build cannot
	// keep a changed tracked file through a reused worktree's reset by
	// restoring its size and mtime.
	"core.trustctime=true",
	"core.checkStat=default",
}

// Transport is what a git command may reach beyond the repository.
type Transport int

const (
	// Offline allows no transport at all and no credential program: a
	// command on the local repository.
	Offline Transport = iota
	// Remote allows https, ssh and git, and file (local paths included)
	// only for the URL the caller names, never one git follows by itself
	// (a submodule's). Remote helpers (ext::, fd::, any "<helper>::" form,
	// git-remote-* programs) and plain http are refused by git before it
	// starts a program or opens a connection.
	Remote
)

// transports are the settings of each Transport, after hardened.
var transports = map[Transport][]string{
	Offline: {"credential.helper=", "core.askPass="},
	Remote: {
		"protocol.https.allow=always",
		"protocol.ssh.allow=always",
		"protocol.git.allow=always",
		"protocol.file.allow=user",
	},
}

// Args returns git's arguments for a command that may use t: a "-c" pair
// for each hardened setting and each setting of t, then args.
func Args(t Transport, args ...string) []string {
	extra := transports[t]
	out := make([]string, 0, 2*(len(hardened)+len(extra))+len(args))
	for _, kv := range hardened {
		out = append(out, "-c", kv)
	}
	for _, kv := range extra {
		out = append(out, "-c", kv)
	}
	return append(out, args...)
}

// Env returns the variables set in git's environment over whatever else it
// gets: no prompt (a command never waits for a password), no pager, no
// editor, and no optional locks (a status does not rewrite the index).
// GIT_PROTOCOL_FROM_USER stays unset, so the URL the caller names counts
// as the user's (see [Remote]); git sets it to 0 itself for the commands
// it runs on its own, such as a submodule's clone.
func Env() map[string]string {
	return map[string]string{
		"GIT_TERMINAL_PROMPT": "0",
		"GIT_PAGER":           "cat",
		"GIT_EDITOR":          "false",
		"GIT_SEQUENCE_EDITOR": "false",
		"GIT_OPTIONAL_LOCKS":  "0",
	}
}

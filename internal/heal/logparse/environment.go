package logparse

import (
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// EnvironmentKind names why a build failed for a reason outside the code:
// nothing in the repository can be edited to make it pass.
type EnvironmentKind string

// The environment kinds [Environment] reports.
const (
	// EnvMissingTool: a program the build runs is not installed.
	EnvMissingTool EnvironmentKind = "missing_tool"
	// EnvNetwork: a host could not be reached (DNS, refused, offline mode).
	EnvNetwork EnvironmentKind = "network"
	// EnvDependency: a dependency could not be resolved or downloaded.
	EnvDependency EnvironmentKind = "dependency"
	// EnvDiskFull: the disk or a quota is full.
	EnvDiskFull EnvironmentKind = "disk_full"
	// EnvOutOfMemory: a process was killed or could not allocate memory.
	EnvOutOfMemory EnvironmentKind = "out_of_memory"
	// EnvTimeout: the build ran out of time.
	EnvTimeout EnvironmentKind = "timeout"
	// EnvReadOnly: the build wrote where the sandbox (or the system) only
	// allows reading, typically a shared module or package cache.
	EnvReadOnly EnvironmentKind = "read_only_filesystem"
)

// EnvironmentFailure is the Parser's deterministic verdict that a failing
// build failed because of its environment, with the log line that shows
// it. It is a separate output from the bug reports: the pipeline contract
// (docs/contracts/heal-pipeline.md §Bug types) allows only
// six bug types, all of them about the code.
type EnvironmentFailure struct {
	Kind EnvironmentKind `json:"kind"`
	// Ecosystem is the tool family whose message matched: go, npm, cargo,
	// pip, maven, gradle, c, shell, system.
	Ecosystem string `json:"ecosystem"`
	// Pattern names the table row that matched.
	Pattern string `json:"pattern"`
	// Evidence is the log line (cleaned, at most 400 bytes) that shows it.
	Evidence string `json:"evidence"`
	// Line is the 1-based line number of Evidence in the log; 0 when the
	// verdict comes from the exit status or the timeout alone.
	Line int `json:"line"`
	// Hint says what the user can do about it.
	Hint string `json:"hint"`
}

// String is the one-line form: "network (go): evidence".
func (e EnvironmentFailure) String() string {
	return fmt.Sprintf("%s (%s): %s", e.Kind, e.Ecosystem, e.Evidence)
}

// envRow is one row of the environment table: a documented message of one
// tool and what it means.
type envRow struct {
	name      string
	ecosystem string
	kind      EnvironmentKind
	// has is a literal the line must contain (case-sensitive), checked
	// before re only, so that most lines cost one substring search.
	has string
	re  *lazyre.Regexp
}

// envTable holds the messages, per ecosystem, that the tools document for
// failures of their environment. Rows are tried in order on each line; the
// first line of the log that matches any row gives the verdict. Each row is
// anchored on the tool's own wording, so that a test that merely prints a
// similar word is not taken for an environment failure.
var envTable = []envRow{
	// Go: the go command's module download errors (cmd/go, "go help
	// module-get", GOPROXY and GOFLAGS=-mod documentation).
	{"go-proxy-off", "go", EnvNetwork, "module lookup disabled by GOPROXY=off", nil},
	{"go-dial", "go", EnvNetwork, "dial tcp", lazyre.New(`(@v[0-9]|go: |/@v/|\.mod|\.zip|\.info)[^\n]*dial tcp[^\n]*(no such host|connection refused|i/o timeout|network is unreachable|server misbehaving|connection reset)`)},
	{"go-tls-timeout", "go", EnvNetwork, "TLS handshake timeout", lazyre.New(`(@v[0-9]|go: |/@v/)[^\n]*TLS handshake timeout`)},
	{"go-missing-sum", "go", EnvDependency, "missing go.sum entry", nil},
	{"go-no-required-module", "go", EnvDependency, "no required module provides package", nil},
	{"go-module-not-found", "go", EnvDependency, "reading ", lazyre.New(`go: [^\n]*: reading [^\n]*: (404 Not Found|410 Gone)`)},
	{"go-unknown-revision", "go", EnvDependency, "unknown revision", lazyre.New(`go: [^\n]*: unknown revision `)},
	{"go-checksum", "go", EnvDependency, "checksum mismatch", lazyre.New(`verifying (module|\S+@\S+)[^\n]*: checksum mismatch`)},
	{"go-toolchain", "go", EnvMissingTool, "GOTOOLCHAIN", lazyre.New(`go: go\.mod requires go >= \S+ \(running go \S+; GOTOOLCHAIN=`)},
	{"go-toolchain-download", "go", EnvNetwork, "downloading go", lazyre.New(`go: downloading go\S+ [^\n]*(dial tcp|no such host|connection refused)`)},
	{"go-out-of-memory", "go", EnvOutOfMemory, "fatal error: runtime: cannot allocate memory", nil},
	{"go-test-killed", "go", EnvOutOfMemory, "signal: killed", lazyre.New(`^(\S+: )?signal: killed$`)},

	// npm, yarn, pnpm: npm's documented error codes (npm-install, "common
	// errors"), which yarn and pnpm share through node's system errors.
	{"npm-network-code", "npm", EnvNetwork, "code E", lazyre.New(`^npm (ERR!|error) code (ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED|ESOCKETTIMEDOUT|CERT_HAS_EXPIRED|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN)\b`)},
	{"npm-not-found", "npm", EnvDependency, "code E404", lazyre.New(`^npm (ERR!|error) code E404\b`)},
	{"npm-no-version", "npm", EnvDependency, "code ETARGET", lazyre.New(`^npm (ERR!|error) code ETARGET\b`)},
	{"npm-eresolve", "npm", EnvDependency, "code ERESOLVE", lazyre.New(`^npm (ERR!|error) code ERESOLVE\b`)},
	{"npm-enospc", "npm", EnvDiskFull, "code ENOSPC", lazyre.New(`^npm (ERR!|error) code ENOSPC\b`)},
	{"node-getaddrinfo", "npm", EnvNetwork, "getaddrinfo", lazyre.New(`getaddrinfo (ENOTFOUND|EAI_AGAIN)\b`)},
	{"yarn-network", "npm", EnvNetwork, "There appears to be trouble with your network connection", nil},
	{"pnpm-fetch", "npm", EnvNetwork, "ERR_PNPM_META_FETCH_FAIL", nil},
	{"yarn-unexpected", "npm", EnvNetwork, "An unexpected error occurred", lazyre.New(`^error An unexpected error occurred: .*\b(ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ESOCKETTIMEDOUT)\b`)},
	{"pnpm-not-found", "npm", EnvDependency, "ERR_PNPM_", lazyre.New(`\bERR_PNPM_(FETCH_404|NO_MATCHING_VERSION|NO_VERSIONS)\b`)},
	{"node-engine", "npm", EnvMissingTool, "is incompatible with this module", lazyre.New(`The engine "[^"]+" is incompatible with this module`)},
	{"npm-ebadengine", "npm", EnvMissingTool, "EBADENGINE", lazyre.New(`^npm (ERR!|error|warn) (code )?EBADENGINE\b`)},
	{"node-heap", "npm", EnvOutOfMemory, "JavaScript heap out of memory", lazyre.New(`FATAL ERROR: [^\n]*JavaScript heap out of memory`)},

	// cargo and rustup: cargo's resolver and registry messages.
	{"cargo-offline", "cargo", EnvNetwork, "--offline was specified", nil},
	{"cargo-resolve-host", "cargo", EnvNetwork, "Could not resolve host", nil},
	{"cargo-spurious", "cargo", EnvNetwork, "spurious network error", nil},
	{"cargo-failed-to-get", "cargo", EnvDependency, "failed to get `", lazyre.New("^error: failed to get `[^`]+` as a dependency of package")},
	{"cargo-no-matching-package", "cargo", EnvDependency, "no matching package named `", lazyre.New("^error: no matching package named `")},
	{"cargo-select-version", "cargo", EnvDependency, "failed to select a version for the requirement", lazyre.New("^error: failed to select a version for the requirement `")},
	{"cargo-update-index", "cargo", EnvNetwork, "failed to update", lazyre.New("^error: failed to (update|download from) (registry|`)")},
	{"cargo-linker", "cargo", EnvMissingTool, "not found", lazyre.New("^error: linker `[^`]+` not found")},
	{"cargo-no-command", "cargo", EnvMissingTool, "no such command", lazyre.New("^error: no such command: `")},
	{"cargo-rust-version", "cargo", EnvMissingTool, "or newer", lazyre.New("^error: (package|rustc) .* (cannot be built because it requires|is not supported by the following packages|requires) rustc [0-9.]+ or newer")},
	{"rustup-toolchain", "cargo", EnvMissingTool, "is not installed", lazyre.New(`^error: toolchain '[^']+' is not installed`)},

	// pip: the resolver's documented errors and urllib3's connection errors.
	{"pip-no-version", "pip", EnvDependency, "Could not find a version that satisfies the requirement", nil},
	{"pip-no-distribution", "pip", EnvDependency, "No matching distribution found for", nil},
	{"pip-connection", "pip", EnvNetwork, "NewConnectionError", lazyre.New(`(Failed to establish a new connection|NewConnectionError)`)},
	{"pip-name-resolution", "pip", EnvNetwork, "name resolution", lazyre.New(`(Temporary failure in name resolution|Name or service not known)`)},
	{"pip-python-version", "pip", EnvMissingTool, "requires a different Python", lazyre.New(`requires a different Python: \S+ not in `)},
	{"uv-offline", "pip", EnvNetwork, "are you offline?", lazyre.New(`Could not connect, are you offline\?`)},
	{"uv-no-solution", "pip", EnvDependency, "No solution found when resolving dependencies", nil},
	{"pip-externally-managed", "pip", EnvMissingTool, "externally-managed-environment", lazyre.New(`^error: externally-managed-environment`)},

	// Maven: the resolver's messages (Maven's error pages).
	{"maven-offline", "maven", EnvNetwork, "in offline mode", lazyre.New(`Cannot access \S+ \([^)]*\) in offline mode`)},
	{"maven-transfer", "maven", EnvNetwork, "Could not transfer artifact", nil},
	{"maven-unknown-host", "maven", EnvNetwork, "UnknownHostException", nil},
	{"maven-resolve-deps", "maven", EnvDependency, "Could not resolve dependencies for project", nil},
	{"maven-plugin", "maven", EnvDependency, "could not be resolved", lazyre.New(`\[ERROR\] Plugin \S+ or one of its dependencies could not be resolved`)},
	{"maven-parent", "maven", EnvDependency, "Non-resolvable parent POM", nil},
	{"maven-descriptor", "maven", EnvDependency, "Failed to read artifact descriptor", nil},
	{"maven-missing-artifact", "maven", EnvDependency, "was not found in", lazyre.New(`\[ERROR\] [^\n]*: \S+:\S+:\S+ was not found in \S+`)},

	// Gradle.
	{"gradle-resolve", "gradle", EnvDependency, "Could not resolve ", lazyre.New(`Could not resolve (all (files|dependencies|artifacts) for configuration|[\w.-]+:[\w.-]+:)`)},
	{"gradle-not-found", "gradle", EnvDependency, "Could not find ", lazyre.New(`^\s*> Could not find [\w.-]+:[\w.-]+:[\w.+-]+\.$`)},
	{"gradle-offline", "gradle", EnvNetwork, "available for offline mode", lazyre.New(`No cached version of \S+ available for offline mode`)},
	{"gradle-get", "gradle", EnvNetwork, "Could not GET '", nil},
	{"gradle-distribution", "gradle", EnvNetwork, "Downloading https", lazyre.New(`Exception in thread "main" java\.net\.(UnknownHostException|ConnectException)`)},

	// .NET (NuGet's documented codes) and Ruby's bundler.
	{"nuget-not-found", "dotnet", EnvDependency, "error NU1", lazyre.New(`error NU1(101|102|103): `)},
	{"nuget-network", "dotnet", EnvNetwork, "error NU1301", nil},
	{"bundler-gem", "ruby", EnvDependency, "Could not find gem '", nil},
	{"bundler-network", "ruby", EnvNetwork, "Could not reach host", nil},

	// C and C++ compilers: the driver's messages when a subprogram is
	// missing, killed or out of memory.
	{"cc-killed", "c", EnvOutOfMemory, "Killed signal terminated program", nil},
	{"cc-vm-exhausted", "c", EnvOutOfMemory, "virtual memory exhausted", nil},
	{"cc-out-of-memory", "c", EnvOutOfMemory, "out of memory allocating", lazyre.New(`^\S*cc1\S*: out of memory allocating`)},
	{"cc-cannot-execute", "c", EnvMissingTool, "cannot execute", lazyre.New(`fatal error: cannot execute '[^']+': (execvp|posix_spawn)`)},
	{"cc-shared-lib", "c", EnvMissingTool, "error while loading shared libraries", nil},

	// Shells, make, env and exec: a command that is not installed. Each
	// row needs the shell's own prefix, so a program's own "not found"
	// message is not taken for one.
	{"sh-not-found", "shell", EnvMissingTool, "not found", lazyre.New(`^(/\S+/)?(sh|dash|bash|zsh|ash): (line )?\d+: [^\s:]+: (command )?not found$`)},
	{"bash-not-found", "shell", EnvMissingTool, "command not found", lazyre.New(`^(/\S+/)?(bash|zsh): [^\s:]+: command not found$`)},
	{"make-no-program", "shell", EnvMissingTool, "No such file or directory", lazyre.New(`^make(\[\d+\])?: [^\s:*]+: No such file or directory$`)},
	{"make-error-127", "shell", EnvMissingTool, "Error 127", lazyre.New(`^make(\[\d+\])?: \*\*\* \[[^\]]*\] Error 127$`)},
	{"env-no-program", "shell", EnvMissingTool, "No such file or directory", lazyre.New(`^(/usr)?(/bin/)?env: '?[^\s:']+'?: No such file or directory$`)},
	{"exec-not-in-path", "shell", EnvMissingTool, "executable file not found in $PATH", lazyre.New(`exec: "[^"]+": executable file not found in \$PATH`)},
	{"python-no-interpreter", "shell", EnvMissingTool, "bad interpreter", lazyre.New(`: bad interpreter: No such file or directory`)},

	// The system: a full disk, a killed process, a timeout command.
	{"enospc", "system", EnvDiskFull, "No space left on device", nil},
	{"enospc-code", "system", EnvDiskFull, "ENOSPC", lazyre.New(`\bENOSPC\b`)},
	{"edquot", "system", EnvDiskFull, "Disk quota exceeded", nil},
	{"erofs", "system", EnvReadOnly, "ead-only file system", lazyre.New(`([Rr]ead-only file system|\bEROFS\b)`)},
	{"erofs-code", "system", EnvReadOnly, "EROFS", lazyre.New(`\bEROFS\b`)},
	{"shell-killed", "system", EnvOutOfMemory, "Killed", lazyre.New(`^(\S+: )?(line \d+: )?\d+ Killed\s`)},
	{"oom-killer", "system", EnvOutOfMemory, "Out of memory: Kill", nil},
}

// Hints per kind: what a user can do, in salve's words.
var envHints = map[EnvironmentKind]string{
	EnvMissingTool: "install the missing program where the build runs (or pass --cmd with a command that exists), then run salve heal again",
	EnvNetwork:     "the build tried to reach the network, which the build sandbox does not give it: fetch the dependencies first (go mod download, npm ci, cargo fetch, pip install -r requirements.txt, mvn dependency:go-offline) or run with --isolation none, then run salve heal again",
	EnvDependency:  "a dependency could not be resolved: check that it exists at that version and is in the local cache (or vendored), then run salve heal again",
	EnvDiskFull:    "free disk space (or the quota) where the build writes, then run salve heal again",
	EnvOutOfMemory: "the build ran out of memory: give it more memory, or build with less parallelism, then run salve heal again",
	EnvTimeout:     "the build ran out of time: raise --timeout, or make the build or tests faster, then run salve heal again",
	EnvReadOnly:    "the build wrote outside the project, where the build sandbox only allows reading (a module or package cache): fill the cache before healing (go mod download, npm ci, cargo fetch) or run with --isolation none, then run salve heal again",
}

// maxEvidence caps the evidence line.
const maxEvidence = 400

// Environment decides, deterministically, whether a failing build failed
// because of its environment rather than its code, and returns the
// verdict with its evidence, or nil. exitCode and timedOut are the
// Executor's; a build that exited 0 is never an environment failure.
//
// The log's lines are tried against a table of the tools' documented
// messages; the first line that matches gives the verdict. A timed-out
// build is a timeout whatever its log says. With no matching line, exit
// 127 (command not found), 137 (killed by SIGKILL, the out-of-memory
// killer's signal) and 124 (the timeout command) are classified from the
// status alone, with the log's last line as evidence.
func Environment(log string, exitCode int, timedOut bool) *EnvironmentFailure {
	if exitCode == 0 && !timedOut {
		return nil
	}
	if timedOut {
		return &EnvironmentFailure{Kind: EnvTimeout, Ecosystem: "system", Pattern: "executor-timeout",
			Evidence: evidenceOr(lastNonBlank(log), "the build was stopped at its time limit"), Hint: envHints[EnvTimeout]}
	}
	n := 0
	for rest := log; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		n++
		if len(line) > MaxLineLength {
			line = line[:MaxLineLength]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		clean := cleanLine(line)
		for i := range envTable {
			row := &envTable[i]
			if !strings.Contains(clean, row.has) {
				continue
			}
			if row.re != nil && !row.re.MatchString(clean) {
				continue
			}
			return &EnvironmentFailure{Kind: row.kind, Ecosystem: row.ecosystem, Pattern: row.name,
				Evidence: clip(strings.TrimSpace(clean)), Line: n, Hint: envHints[row.kind]}
		}
	}
	var kind EnvironmentKind
	var pattern, why string
	switch exitCode {
	case 127:
		kind, pattern, why = EnvMissingTool, "exit-127", "the build exited 127: a command was not found"
	case 137:
		kind, pattern, why = EnvOutOfMemory, "exit-137", "the build was killed by SIGKILL (exit 137), the out-of-memory killer's signal"
	case 124:
		kind, pattern, why = EnvTimeout, "exit-124", "the build's timeout command stopped it (exit 124)"
	default:
		return nil
	}
	return &EnvironmentFailure{Kind: kind, Ecosystem: "system", Pattern: pattern,
		Evidence: evidenceOr(lastNonBlank(log), why), Hint: envHints[kind]}
}

func evidenceOr(line, fallback string) string {
	if line == "" {
		return fallback
	}
	return line
}

// lastNonBlank returns the log's last non-blank line, cleaned and clipped.
func lastNonBlank(log string) string {
	for log != "" {
		i := strings.LastIndexByte(log, '\n')
		line := log[i+1:]
		log = log[:max(i, 0)]
		if len(line) > MaxLineLength {
			line = line[:MaxLineLength]
		}
		if l := strings.TrimSpace(cleanLine(line)); l != "" {
			return clip(l)
		}
		if i < 0 {
			break
		}
	}
	return ""
}

// clip caps s at maxEvidence bytes without splitting a UTF-8 sequence.
func clip(s string) string {
	if len(s) <= maxEvidence {
		return s
	}
	i := maxEvidence
	for i > 0 && s[i]&0xc0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// Package gitremote holds salve's one policy on the git remotes it lets
// git reach, for git_agent's git_push and for the service worker's clone,
// fetch and ls-remote alike:
//
//   - [Check]: which transports: a local path, a configured remote's name,
//     an scp-like "[user@]host:path", or a URL whose scheme is https, ssh,
//     git or file. Remote helpers ("<helper>::<address>", such as ext::,
//     fd::, testgit::) and every other scheme (plain http among them) are
//     refused, since git would start a program named after them.
//   - [CheckCredentials]: no password or token inside the remote.
//   - [CheckPublic]: a network remote names no loopback, link-local or
//     private address (the worker's defence against reaching local
//     services through a job's repository URL).
//
// The package only reads strings; [CheckPublic] resolves names through the
// lookup function its caller gives.
package gitremote

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// MaxLen is the longest remote Check accepts.
const MaxLen = 4096

// Errors wrapped by the checks, for callers that branch with errors.Is.
var (
	// ErrInvalid: empty, too long, option-like (leading '-') or holding
	// control characters. Returned by Check.
	ErrInvalid = errors.New("not a usable git remote")
	// ErrHelper: a remote helper ("<helper>::<address>"). Returned by Check.
	ErrHelper = errors.New("git remote helpers are refused")
	// ErrScheme: a URL scheme outside the allowed transports. Returned by
	// Check.
	ErrScheme = errors.New("git transport is refused")
	// ErrCredentials: a password or token inside the remote. Returned by
	// CheckCredentials.
	ErrCredentials = errors.New("the remote carries credentials")
	// ErrPrivate: a network remote naming a loopback, link-local or
	// private address. Returned by CheckPublic.
	ErrPrivate = errors.New("the remote names a local or private address")
)

// scheme is one allowed URL scheme.
type scheme struct {
	name string
	// network is false for file://, which reads the local disk.
	network bool
}

// schemes are the URL schemes a remote may use: git's own transports that
// need no helper program of salve's choosing. Their names are compared
// exactly (git looks up "git-remote-HTTPS" for "HTTPS://").
var schemes = []scheme{
	{"https", true},
	{"ssh", true},
	{"git+ssh", true},
	{"ssh+git", true},
	{"git", true},
	{"file", false},
}

// Schemes returns the names of the allowed URL schemes, for messages and
// documentation.
func Schemes() []string {
	names := make([]string, len(schemes))
	for i, s := range schemes {
		names[i] = s.name
	}
	return names
}

func lookupScheme(name string) (scheme, bool) {
	for _, s := range schemes {
		if s.name == name {
			return s, true
		}
	}
	return scheme{}, false
}

// Check accepts a remote git may use without starting a program of the
// remote's choosing: a local path or a configured remote's name, an
// scp-like "[user@]host:path", or a URL of an allowed scheme (https, ssh,
// git+ssh, ssh+git, git, file). It refuses (wrapping [ErrInvalid]) an
// empty or over-long remote, a leading '-' and control characters;
// (wrapping [ErrHelper]) any "<helper>::<address>" form; and (wrapping
// [ErrScheme]) every other URL scheme, plain http included. Check never
// echoes the remote in its error, which may carry credentials.
func Check(remote string) error {
	switch {
	case remote == "":
		return fmt.Errorf("%w: must not be empty", ErrInvalid)
	case len(remote) > MaxLen:
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalid, MaxLen)
	case remote[0] == '-':
		return fmt.Errorf("%w: may not start with '-'", ErrInvalid)
	}
	for _, r := range remote {
		if r < ' ' || r == 0x7f {
			return fmt.Errorf("%w: must not contain control characters", ErrInvalid)
		}
	}
	if name, ok := helperName(remote); ok {
		return fmt.Errorf("%w: %q (<helper>::<address>); use an %s URL, a path or a configured remote",
			ErrHelper, name, strings.Join(Schemes(), ", "))
	}
	if name, ok := schemeName(remote); ok {
		if _, allowed := lookupScheme(name); !allowed {
			return fmt.Errorf("%w: %q; use %s", ErrScheme, name, strings.Join(Schemes(), ", "))
		}
	}
	return nil
}

// helperName reports whether remote is git's "<helper>::<address>" form,
// and the helper's name. git takes the longest run of URL-scheme
// characters; this is stricter: whatever comes before the first "::" is a
// helper unless it holds a character no helper name has and a URL or a
// bracketed host has before it ('/', ':', '[', '@'), so "https://[::1]/x"
// stays a URL.
func helperName(remote string) (string, bool) {
	i := strings.Index(remote, "::")
	if i < 0 {
		return "", false
	}
	name := remote[:i]
	if strings.ContainsAny(name, "/:[@") {
		return "", false
	}
	return name, true
}

// schemeName returns the scheme of a "scheme://…" URL, as git reads one:
// a letter, then letters, digits, '+', '-' or '.', then "://".
func schemeName(remote string) (string, bool) {
	i := strings.Index(remote, "://")
	if i <= 0 {
		return "", false
	}
	name := remote[:i]
	for j, c := range name {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return name, true
}

// tokenPrefixes begin the access tokens of the common forges; a user
// name, or any part of a remote, that starts with one followed by at least
// minTokenTail token characters is a credential.
var tokenPrefixes = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", // GitHub
	"glpat-", "gloas-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glsoat-", // GitLab
	"ATBB", "ATCTT", // Bitbucket, Atlassian
}

const (
	// minTokenTail is how many token characters must follow a prefix.
	minTokenTail = 16
	// minOpaqueUser is the length from which a user name made only of token
	// characters, with a digit, is taken for a token (a 40-hex classic
	// token, a random key).
	minOpaqueUser = 32
)

// CheckCredentials refuses (wrapping [ErrCredentials]) a remote that
// carries a secret: a URL whose user information holds a password
// ("https://user:secret@host/…", even an empty one) or whose user name
// looks like a token ("https://ghp_…@host/…", an scp-like
// "ghp_…@host:path"), and any remote holding a forge token elsewhere (a
// query string "?private_token=glpat-…"). The error never quotes the
// remote.
func CheckCredentials(remote string) error {
	user, password := userInfo(remote)
	switch {
	case password:
		return fmt.Errorf("%w: the URL holds a password or token (user:password@host)", ErrCredentials)
	case user != "" && tokenLike(user):
		return fmt.Errorf("%w: the URL's user name is a token", ErrCredentials)
	case containsToken(remote):
		return fmt.Errorf("%w: the remote holds an access token", ErrCredentials)
	}
	return nil
}

// userInfo returns the user name of remote's user information
// (percent-decoded when it decodes) and whether it holds a password.
func userInfo(remote string) (user string, password bool) {
	var info string
	if _, ok := schemeName(remote); ok {
		auth := authority(remote)
		at := strings.LastIndexByte(auth, '@')
		if at < 0 {
			return "", false
		}
		info = auth[:at]
	} else {
		host, _, ok := scpSplit(remote)
		if !ok {
			return "", false
		}
		at := strings.LastIndexByte(host, '@')
		if at < 0 {
			return "", false
		}
		info = host[:at]
	}
	user, pw, hasPw := strings.Cut(info, ":")
	if u, err := url.PathUnescape(user); err == nil {
		user = u
	}
	return user, hasPw || pw != ""
}

// authority returns the "[userinfo@]host[:port]" of a "scheme://" URL.
func authority(remote string) string {
	rest := remote[strings.Index(remote, "://")+3:]
	if end := strings.IndexAny(rest, "/?#\\"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// scpSplit splits git's scp-like "[user@]host:path" into its host part
// (user included) and path. git reads a remote so when it is no URL and a
// ':' comes before any '/'; a bracketed "[host:port]" or "[::1]" may hold
// colons.
func scpSplit(remote string) (host, path string, ok bool) {
	if _, isURL := schemeName(remote); isURL {
		return "", "", false
	}
	if _, isHelper := helperName(remote); isHelper {
		return "", "", false
	}
	search := 0
	if open := strings.IndexByte(remote, '['); open >= 0 {
		if end := strings.IndexByte(remote[open:], ']'); end >= 0 && !strings.Contains(remote[:open], "/") {
			search = open + end
		}
	}
	colon := strings.IndexByte(remote[search:], ':')
	if colon < 0 {
		return "", "", false
	}
	colon += search
	if strings.Contains(remote[:colon], "/") {
		return "", "", false
	}
	return remote[:colon], remote[colon+1:], true
}

// tokenLike reports whether a user name is a token: a long opaque string
// of token characters with a digit (forge prefixes are found anywhere by
// containsToken).
func tokenLike(user string) bool {
	if len(user) < minOpaqueUser {
		return false
	}
	digit := false
	for _, c := range user {
		if !isTokenChar(c) {
			return false
		}
		digit = digit || c >= '0' && c <= '9'
	}
	return digit
}

// containsToken reports whether a forge token prefix followed by at least
// minTokenTail token characters appears anywhere in s.
func containsToken(s string) bool {
	for _, p := range tokenPrefixes {
		for rest := s; ; {
			i := strings.Index(rest, p)
			if i < 0 {
				break
			}
			rest = rest[i+len(p):]
			n := 0
			for n < len(rest) && isTokenChar(rune(rest[n])) {
				n++
			}
			if n >= minTokenTail {
				return true
			}
		}
	}
	return false
}

func isTokenChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

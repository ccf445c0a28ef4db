package gitremote

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// Identity names the repository a remote points at, the same for every
// spelling of one address: "scheme://host[:port]/path" with the scheme and
// host lower-cased, the user information (a user name, a password, a
// token) dropped, the path cleaned, its trailing "/" and ".git" dropped,
// and any query or fragment left out. An scp-like "[user@]host:path" is
// the ssh URL it stands for; a local path or file URL is "file://" and the
// cleaned absolute path, escaped as a URL path (a relative path is taken
// from the current directory). ok is false when remote is not a usable
// remote ([Check]), names no repository (a configured remote's name, an
// empty path), or its identity would be longer than [MaxLen].
//
// Salve keys what it keeps per repository by it (the build-cache layers of
// package internal/heal/executor), so it carries no secret.
func Identity(remote string) (id string, ok bool) {
	if Check(remote) != nil {
		return "", false
	}
	id, ok = identity(remote)
	if len(id) > MaxLen {
		return "", false // escaping made it longer than any remote Check takes
	}
	return id, ok
}

func identity(remote string) (string, bool) {
	if name, isURL := schemeName(remote); isURL {
		u, err := url.Parse(remote)
		if err != nil {
			return "", false
		}
		scheme := strings.ToLower(name)
		if scheme == "git+ssh" || scheme == "ssh+git" {
			scheme = "ssh"
		}
		if scheme == "file" {
			return localIdentity(u.Path)
		}
		return networkIdentity(scheme, cleanHost(u.Hostname()), u.Port(), u.Path)
	}
	if hp, p, isSCP := scpSplit(remote); isSCP {
		return networkIdentity("ssh", cleanHost(hostPort(hp+":")), "", p) // no port in scp-like syntax
	}
	if !strings.ContainsAny(remote, `/\`) && !strings.HasPrefix(remote, ".") {
		return "", false // a configured remote's name ("origin")
	}
	return localIdentity(remote)
}

// networkIdentity joins a network remote's parts, or fails when a part is
// missing or the host is no host name or address.
func networkIdentity(scheme, host, port, p string) (string, bool) {
	p = trimRepoPath(path.Clean("/" + p))
	if strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789.-_:") != "" || strings.Trim(host, ".-_:") == "" ||
		strings.Trim(port, "0123456789") != "" || p == "/" {
		return "", false
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 address
	}
	if port != "" {
		host += ":" + port
	}
	return (&url.URL{Scheme: scheme, Host: host, Path: p}).String(), true
}

// localIdentity is the identity of a repository on the local disk.
func localIdentity(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	abs = trimRepoPath(filepath.ToSlash(abs))
	if abs == "/" {
		return "", false
	}
	return (&url.URL{Scheme: "file", Path: abs}).String(), true
}

// trimRepoPath drops a cleaned path's trailing ".git" ("/acme/api.git" and
// "/acme/api/.git" are the repository "/acme/api"), as often as it ends so.
func trimRepoPath(p string) string {
	for {
		t := strings.TrimSuffix(strings.TrimSuffix(p, "/.git"), ".git")
		if t == "" {
			return "/"
		}
		if t = path.Clean(t); t == p {
			return p
		}
		p = t
	}
}

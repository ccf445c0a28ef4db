package gitremote

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
)

// Host returns the host a network remote connects to, lower-cased, with
// an IPv6 literal's brackets and zone, the port and a final dot removed:
// the host of a URL whose scheme is a network transport (https, ssh, git…)
// or of an scp-like "[user@]host:path". ok is false for a local path, a
// configured remote's name, a file URL and a remote helper.
func Host(remote string) (host string, ok bool) {
	if name, isURL := schemeName(remote); isURL {
		s, known := lookupScheme(name)
		if known && !s.network {
			return "", false
		}
		return cleanHost(hostPort(authority(remote))), true
	}
	hp, _, isSCP := scpSplit(remote)
	if !isSCP {
		return "", false
	}
	return cleanHost(hostPort(hp)), true
}

// hostPort drops the user information and the port of
// "[user@]host[:port]", and the brackets of "[v6]" or "[host:port]".
func hostPort(auth string) string {
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
	}
	if strings.HasPrefix(auth, "[") {
		if end := strings.IndexByte(auth, ']'); end >= 0 {
			inner := auth[1:end]
			if _, err := netip.ParseAddr(inner); err == nil || !strings.Contains(inner, ":") {
				return inner
			}
			// "[host:port]", git's bracketed scp-like host with a port.
			return inner[:strings.LastIndexByte(inner, ':')]
		}
	}
	if c := strings.LastIndexByte(auth, ':'); c >= 0 {
		return auth[:c]
	}
	return auth
}

func cleanHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if i := strings.IndexByte(h, '%'); i >= 0 && strings.Contains(h, ":") {
		h = h[:i] // an IPv6 zone ("fe80::1%eth0")
	}
	return h
}

// LookupFunc resolves a host name to its addresses, as
// (*net.Resolver).LookupNetIP(ctx, "ip", host) does.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// localNames are host names that always mean this machine, resolved by no
// DNS server.
var localNames = []string{"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}

// isLocalName reports whether host is one of localNames or under
// ".localhost".
func isLocalName(host string) bool {
	for _, n := range localNames {
		if host == n {
			return true
		}
	}
	return strings.HasSuffix(host, ".localhost")
}

// privatePrefixes are the address ranges a worker must not reach on a
// job's behalf: this host, the local networks and addresses no public
// repository lives at. IPv4-mapped IPv6 addresses are unmapped first.
var privatePrefixes = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (carrier NAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "protocol assignments"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/96"), "unspecified, loopback or IPv4-compatible"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (private)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// privateRange returns why addr is not a public address, or "".
func privateRange(addr netip.Addr) string {
	addr = addr.Unmap().WithZone("")
	for _, p := range privatePrefixes {
		if p.prefix.Contains(addr) {
			return p.why
		}
	}
	return ""
}

// CheckPublic refuses (wrapping [ErrPrivate]) a network remote whose host
// is a loopback, link-local, private or otherwise non-public address:
// "localhost" and its kin, an address literal in such a range, a numeric
// host in a form other than the canonical dotted quad ("2130706433",
// "0x7f.1", "127.1", which the system resolver would read as 127.0.0.1),
// or a name that lookup resolves to any such address. Local paths and file
// URLs pass. With a nil lookup, or when lookup fails, names pass: git then
// resolves them itself (through a proxy, maybe) or fails. A name checked
// here may resolve elsewhere when git connects (DNS rebinding), and an
// https server may redirect git: the check narrows the attack, it cannot
// close it; a firewall around the worker can.
func CheckPublic(ctx context.Context, remote string, lookup LookupFunc) error {
	host, ok := Host(remote)
	if !ok || host == "" {
		return nil
	}
	if isLocalName(host) {
		return fmt.Errorf("%w: %q is this machine", ErrPrivate, host)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if why := privateRange(addr); why != "" {
			return fmt.Errorf("%w: %s is a %s address", ErrPrivate, addr, why)
		}
		return nil
	}
	if numericHost(host) {
		return fmt.Errorf("%w: %q is a numeric address in a non-canonical form", ErrPrivate, host)
	}
	if lookup == nil {
		return nil
	}
	addrs, err := lookup(ctx, host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if why := privateRange(a); why != "" {
			return fmt.Errorf("%w: %q resolves to %s, a %s address", ErrPrivate, host, a.Unmap(), why)
		}
	}
	return nil
}

// numericHost reports whether every dot-separated part of h is a number
// as inet_aton reads one (decimal, 0x-hex or 0-octal), so that the system
// resolver would take h for an IPv4 address.
func numericHost(h string) bool {
	for _, part := range strings.Split(h, ".") {
		digits := part
		hex := strings.HasPrefix(part, "0x")
		if hex {
			digits = part[2:]
		}
		if digits == "" && !hex {
			return false
		}
		for _, c := range digits {
			if !(c >= '0' && c <= '9' || hex && c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}

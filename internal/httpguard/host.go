package httpguard

import (
	"net/netip"
	"strings"
)

// LocalHost reports whether a Host header names this machine: localhost,
// an IPv4 loopback address (127.x.y.z) or [::1], each with or without a
// port. Any other name, an IPv6 address without brackets, an empty or
// malformed port, and anything with a path, user or space is refused.
func LocalHost(hostport string) bool {
	host, ok := splitHost(hostport)
	if !ok {
		return false
	}
	if strings.HasPrefix(host, "[") {
		ip, err := netip.ParseAddr(host[1 : len(host)-1])
		return err == nil && ip.Is6() && ip.Zone() == "" && ip == netip.IPv6Loopback()
	}
	if asciiEqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Is4() && ip.IsLoopback()
}

// splitHost splits a Host header into its host (an IPv6 address keeps its
// brackets) and checks the port, when there is one, is 1 to 5 digits.
func splitHost(hostport string) (string, bool) {
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return "", false
		}
		host, port = hostport[:end+1], hostport[end+1:]
		if port != "" {
			if port[0] != ':' {
				return "", false
			}
			port = port[1:]
			if port == "" {
				return "", false
			}
		}
	} else if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host, port = hostport[:i], hostport[i+1:]
		if port == "" || strings.IndexByte(host, ':') >= 0 {
			return "", false
		}
	}
	if host == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return "", false
	}
	return host, true
}

// LoopbackHost reports whether host (a name or an address, without a
// port; an IPv6 address with or without brackets) is this machine's
// loopback: localhost or a loopback address. An empty host (every
// interface) and every other name are not.
func LoopbackHost(host string) bool {
	if asciiEqualFold(host, "localhost") {
		return true
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// originSchemes are the schemes of the origins salve's servers are served
// under.
var originSchemes = map[string]bool{"http": true, "https": true}

// SameOrigin reports whether an Origin header names the host a request
// was sent to: scheme http or https, then exactly host (compared without
// regard to ASCII case), with no path. "null" (a sandboxed or file page) is
// never the same origin.
func SameOrigin(origin, host string) bool {
	scheme, rest, ok := strings.Cut(origin, "://")
	if !ok || !originSchemes[strings.ToLower(scheme)] || rest == "" || host == "" {
		return false
	}
	if strings.ContainsAny(rest, "/?#@ \t\\") {
		return false
	}
	return asciiEqualFold(rest, host)
}

// asciiEqualFold compares a and b without regard to ASCII case; any other
// byte must be equal (host names on the wire are ASCII).
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

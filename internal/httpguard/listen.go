package httpguard

import (
	"errors"
	"fmt"
	"net"
)

// ErrNoToken is returned by Listen.Check for a server that would listen
// beyond loopback with no token and no explicit consent.
var ErrNoToken = errors.New("a server listening beyond loopback needs a token")

// InsecureFlag is the flag that lets a server listen beyond loopback with
// no token.
const InsecureFlag = "--insecure-no-token"

// Listen is how a server is about to listen, for Check.
type Listen struct {
	// Server names the server in messages ("salve serve").
	Server string
	// Flag is the flag that set Addr ("--listen").
	Flag string
	// Addr is the address: host:port, or a bare host.
	Addr string
	// Token is the server's token; empty means none.
	Token string
	// TokenHint says how to give one ("$SALVE_SERVER_TOKEN").
	TokenHint string
	// Risk says what anyone who reaches a server with no token can do
	// ("queue heals whose commands run on the workers").
	Risk string
	// Insecure is the operator's explicit consent (InsecureFlag) to
	// listen beyond loopback with no token.
	Insecure bool
}

// Loopback reports whether Addr is a loopback address (localhost, or a
// loopback IP). An empty host listens on every interface and is not.
func (l Listen) Loopback() bool {
	host, _, err := net.SplitHostPort(l.Addr)
	if err != nil {
		host = l.Addr
	}
	return LoopbackHost(host)
}

// Check decides whether the server may start. On loopback, or with a
// token, it may. Beyond loopback with no token it may not (an error
// wrapping ErrNoToken that names the token to give), unless Insecure is
// set: then it may, and warning is the text the caller must print.
func (l Listen) Check() (warning string, err error) {
	if l.Token != "" || l.Loopback() {
		return "", nil
	}
	if !l.Insecure {
		return "", fmt.Errorf("%s: %s %s is not a loopback address and no token is set: give %s, or %s to let anyone who can reach it in: %w",
			l.Server, l.Flag, l.Addr, l.TokenHint, InsecureFlag, ErrNoToken)
	}
	return fmt.Sprintf("WARNING: %s listens on %s with no token (%s): anyone who can reach it can %s; set %s",
		l.Server, l.Addr, InsecureFlag, l.Risk, l.TokenHint), nil
}

package service

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// EmbeddedOptions configure the NATS server salve serve embeds.
type EmbeddedOptions struct {
	// Listen is host:port for workers; port 0 picks a free one. Empty
	// means 127.0.0.1:4222.
	Listen string
	// DataDir holds JetStream's files.
	DataDir string
	// Name names the server (a cluster's nodes need distinct names).
	Name string
	// Token, when set, is the token every client must present
	// (nats://TOKEN@host:port, or the client's token option), and the
	// password of the routes between cluster nodes; without it the server
	// accepts any client or node that can reach it.
	Token string
	// TLSCert and TLSKey, PEM files, make the server speak TLS only: every
	// client must connect with TLS and trust the certificate.
	TLSCert, TLSKey string
	// Cluster, when set, joins a JetStream cluster: ClusterListen is this
	// node's route address, Routes the others'.
	ClusterName   string
	ClusterListen string
	Routes        []string
}

// routeUser is the user name of routes between embedded nodes; the
// password is the token.
const routeUser = "salve"

// ErrBadTLS is wrapped when the TLS certificate or key cannot be used.
var ErrBadTLS = errors.New("bad NATS TLS certificate or key")

// StartEmbedded starts a NATS server with JetStream file storage and waits
// until it accepts connections. Shutdown it with its Shutdown method.
func StartEmbedded(o EmbeddedOptions) (*server.Server, error) {
	if o.Listen == "" {
		o.Listen = "127.0.0.1:4222"
	}
	host, port, err := splitHostPort(o.Listen)
	if err != nil {
		return nil, fmt.Errorf("service: --nats-listen %q: %w", o.Listen, err)
	}
	opts := &server.Options{
		ServerName: o.Name, Host: host, Port: port, JetStream: true,
		StoreDir: filepath.Join(o.DataDir, "jetstream"), NoSigs: true, NoLog: true,
		Authorization: o.Token,
	}
	if o.TLSCert != "" || o.TLSKey != "" {
		if o.TLSCert == "" || o.TLSKey == "" {
			return nil, fmt.Errorf("service: %w: TLS needs both a certificate and its key", ErrBadTLS)
		}
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: o.TLSCert, KeyFile: o.TLSKey})
		if err != nil {
			return nil, fmt.Errorf("service: %w: %v", ErrBadTLS, err)
		}
		opts.TLS, opts.TLSConfig, opts.TLSTimeout = true, tc, 5
	}
	if o.ClusterListen != "" {
		ch, cp, err := splitHostPort(o.ClusterListen)
		if err != nil {
			return nil, fmt.Errorf("service: cluster listen %q: %w", o.ClusterListen, err)
		}
		opts.Cluster = server.ClusterOpts{Name: o.ClusterName, Host: ch, Port: cp}
		if o.Token != "" {
			// The nodes authenticate each other's routes with the token.
			opts.Cluster.Username, opts.Cluster.Password = routeUser, o.Token
		}
		for _, r := range o.Routes {
			for _, u := range server.RoutesFromStr(r) {
				if o.Token != "" && u.User == nil {
					u.User = url.UserPassword(routeUser, o.Token)
				}
				opts.Routes = append(opts.Routes, u)
			}
		}
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("service: nats server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("service: the nats server did not start on %s", o.Listen)
	}
	return ns, nil
}

func splitHostPort(hp string) (string, int, error) {
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return "", 0, fmt.Errorf("bad port %q", p)
	}
	if n == 0 {
		n = server.RANDOM_PORT
	}
	return h, n, nil
}

package network

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// Reach is where the egress proxy listens, the host's [network] table.
// By default each listener is on loopback: only a browser on this machine
// reaches it. A browser on a Selenium Grid node (browser.grid) runs on
// another machine: ProxyListen binds the listeners to an address of this
// host the nodes reach, and ProxyAddress is the address they dial when
// that differs (a bind to 0.0.0.0, or a NAT in between). Every listener
// keeps its own random credentials and checks them on every request, as
// on loopback. With ProxyTLS the listeners speak TLS (Chromium's
// https:// proxies), so the credentials and what the pages send do not
// cross the network in clear: the key is the operator's
// (ProxyTLSCert/ProxyTLSKey) or, without them, one the host makes at
// start; either way the grid browsers are told to trust exactly that key
// (TrustSPKI).
type Reach struct {
	// ProxyListen is the IP address the listeners bind (default
	// 127.0.0.1); a port is chosen per listener.
	ProxyListen string `toml:"proxy_listen"`
	// ProxyAddress is the IP address the browsers dial (default
	// ProxyListen). An IP, never a name: the browser resolves no name
	// itself (proxy.go's resolver rules in hostfuncs/browser).
	ProxyAddress string `toml:"proxy_address"`
	// ProxyPorts is the range the listeners' ports are taken from,
	// "first-last" (default: any free port). A fleet sets it so a firewall
	// or a Kubernetes NetworkPolicy can name the ports the grid nodes may
	// reach; each open session holds one, so give at least as many as
	// browser.max_contexts. The range used up, a new session is refused
	// (resource_limit naming this key).
	ProxyPorts string `toml:"proxy_ports"`
	// ProxyTLS makes the listeners speak TLS.
	ProxyTLS bool `toml:"proxy_tls"`
	// ProxyTLSCert and ProxyTLSKey are PEM files; both or neither.
	ProxyTLSCert string `toml:"proxy_tls_cert"`
	ProxyTLSKey  string `toml:"proxy_tls_key"`
}

// Validate reports every problem at once, naming the key.
func (r Reach) Validate() error {
	var errs []error
	ip := func(key, v string) (netip.Addr, bool) {
		a, err := netip.ParseAddr(v)
		if err != nil {
			errs = append(errs, abi.Errorf(abi.CodeInputInvalid, "network.%s = %q: give an IP address (a browser resolves no name itself)", key, v))
			return a, false
		}
		return a, true
	}
	if r.ProxyListen != "" {
		if a, ok := ip("proxy_listen", r.ProxyListen); ok && a.IsUnspecified() && r.ProxyAddress == "" {
			errs = append(errs, abi.Errorf(abi.CodeInputInvalid, "network.proxy_listen = %q binds every address: set network.proxy_address to the one the grid nodes dial", r.ProxyListen))
		}
	}
	if r.ProxyAddress != "" {
		if a, ok := ip("proxy_address", r.ProxyAddress); ok && a.IsUnspecified() {
			errs = append(errs, abi.Errorf(abi.CodeInputInvalid, "network.proxy_address = %q: give the address the grid nodes dial", r.ProxyAddress))
		}
	}
	if _, _, err := r.portRange(); err != nil {
		errs = append(errs, err)
	}
	if (r.ProxyTLSCert == "") != (r.ProxyTLSKey == "") {
		errs = append(errs, abi.Errorf(abi.CodeInputInvalid, "network.proxy_tls_cert and network.proxy_tls_key go together: set both, or neither (the host then makes its own key)"))
	}
	if r.ProxyTLSCert != "" && !r.ProxyTLS {
		errs = append(errs, abi.Errorf(abi.CodeInputInvalid, "network.proxy_tls_cert is set but network.proxy_tls is false: set proxy_tls = true"))
	}
	return errors.Join(errs...)
}

// portRange is ProxyPorts read: 0, 0 when unset.
func (r Reach) portRange() (first, last int, err error) {
	if r.ProxyPorts == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(r.ProxyPorts, "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || first < 1 || last > 65535 || first > last {
		return 0, 0, abi.Errorf(abi.CodeInputInvalid, "network.proxy_ports = %q: give a range of ports, like \"20000-20099\"", r.ProxyPorts)
	}
	return first, last, nil
}

// listen binds a listener on the bind address: on any free port, or on
// the first free one of ProxyPorts from a random start (so that hosts
// started together do not all try the same port first).
func (r Reach) listen() (net.Listener, error) {
	first, last, err := r.portRange()
	if err != nil {
		return nil, err
	}
	if first == 0 {
		return net.Listen("tcp", net.JoinHostPort(r.bind(), "0"))
	}
	n := last - first + 1
	start := mrand.IntN(n)
	for i := range n {
		port := first + (start+i)%n
		if ln, err := net.Listen("tcp", net.JoinHostPort(r.bind(), strconv.Itoa(port))); err == nil {
			return ln, nil
		}
	}
	return nil, abi.Errorf(abi.CodeResourceLimit, "no free port in network.proxy_ports %s on %s for a session's egress proxy: close sessions you no longer need, or ask the operator to widen the range", r.ProxyPorts, r.bind())
}

// bind and advertised are the listen host and the host in proxy URLs.
func (r Reach) bind() string {
	if r.ProxyListen == "" {
		return "127.0.0.1"
	}
	return r.ProxyListen
}

func (r Reach) advertised() string {
	if r.ProxyAddress != "" {
		return r.ProxyAddress
	}
	return r.bind()
}

// proxyTLS is the listeners' TLS config and the base64 SHA-256 of its
// public key (what Chromium's --ignore-certificate-errors-spki-list takes).
func (r Reach) proxyTLS() (*tls.Config, string, error) {
	if !r.ProxyTLS {
		return nil, "", nil
	}
	var cert tls.Certificate
	var err error
	if r.ProxyTLSCert != "" {
		cert, err = tls.LoadX509KeyPair(r.ProxyTLSCert, r.ProxyTLSKey)
		if err != nil {
			return nil, "", abi.Errorf(abi.CodeInputInvalid, "network.proxy_tls_cert/proxy_tls_key: %v", err)
		}
	} else if cert, err = selfSigned(r.advertised()); err != nil {
		return nil, "", fmt.Errorf("egress proxy TLS key: %w", err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return nil, "", abi.Errorf(abi.CodeInputInvalid, "network.proxy_tls_cert: %v", err)
	}
	sum := sha256.Sum256(leaf.RawSubjectPublicKeyInfo)
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, base64.StdEncoding.EncodeToString(sum[:]), nil
}

// selfSigned makes a certificate for the proxy's address, valid a year.
func selfSigned(addr string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "wasmwright egress proxy"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP(addr)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// ProxyHost is the IP address in the listeners' proxy URLs.
func (s *Service) ProxyHost() string { return s.opts.Reach.advertised() }

// TrustSPKI is the base64 SHA-256 of the TLS proxy's public key, for the
// grid browsers to trust, or "" when the proxy speaks plain HTTP.
func (s *Service) TrustSPKI() string { return s.spki }

package network

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"
	"golang.org/x/net/idna"
)

// Policy is what one personality may reach: its
// [personalities.NAME.network] table, decoded straight from the TOML
// (unknown keys refused) and checked by Validate. The zero value, an
// absent table, is the default: public addresses only, on ports 80 and 443.
type Policy struct {
	// AllowedHosts are reachable whatever they resolve to and on any port:
	// the operator vouches for them ("intranet.example", "127.0.0.1",
	// "127.0.0.1:8080" for one port only, "*.corp.example" for subdomains).
	AllowedHosts []string `toml:"allowed_hosts"`
	// OnlyHosts, when not empty, are the only hosts reachable besides
	// AllowedHosts; "*.example.com" covers subdomains, not the apex, and
	// "host:port" that host on that port only (which Ports must allow).
	OnlyHosts []string `toml:"only_hosts"`
	// AllowPrivate lets RFC 1918, CGNAT (100.64/10) and unique-local IPv6
	// addresses through. Never loopback, link-local (cloud metadata) or
	// unspecified addresses: those need AllowedHosts.
	AllowPrivate bool `toml:"allow_private"`
	// Ports are the ports reachable (default 80 and 443).
	Ports []int `toml:"ports"`
}

// defaultPorts are the ports a policy allows when it names none. Unexported
// and copied on use: every policy that names none would share the slice.
var defaultPorts = [...]int{80, 443}

// Validate reports every mistake at once.
func (p Policy) Validate() error {
	var errs []error
	for _, port := range p.Ports {
		if port < 1 || port > 65535 {
			errs = append(errs, fmt.Errorf("network.ports: %d is not a port (1-65535)", port))
		}
	}
	for _, h := range p.AllowedHosts {
		if _, err := parsePattern(h); err != nil {
			errs = append(errs, fmt.Errorf("network.allowed_hosts: %w", err))
		}
	}
	for _, h := range p.OnlyHosts {
		if _, err := parsePattern(h); err != nil {
			errs = append(errs, fmt.Errorf("network.only_hosts: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Key is a canonical form: two policies with the same key behave the same.
func (p Policy) Key() string {
	norm := func(s []string) string {
		c := make([]string, len(s))
		for i, v := range s {
			c[i] = strings.ToLower(strings.TrimSpace(v))
		}
		sort.Strings(c)
		return strings.Join(slices.Compact(c), ",")
	}
	ports := slices.Clone(p.Ports)
	if len(ports) == 0 {
		ports = slices.Clone(defaultPorts[:])
	}
	slices.Sort(ports)
	return fmt.Sprintf("allowed=%s;only=%s;private=%t;ports=%v", norm(p.AllowedHosts), norm(p.OnlyHosts), p.AllowPrivate, slices.Compact(ports))
}

// pattern is one host entry: an exact host, or "*.suffix".
type pattern struct {
	host     string // canonical: lower-case ASCII name, or an IP's String()
	wildcard bool
	port     int // 0: any
}

// parsePattern reads one allowed_hosts or only_hosts entry; both take the
// same syntax: "host", "*.suffix", "host:port", "[v6]:port".
func parsePattern(s string) (pattern, error) {
	raw := strings.TrimSpace(s)
	var p pattern
	if strings.HasPrefix(raw, "*.") {
		p.wildcard = true
		raw = raw[2:]
	}
	if h, port, err := net.SplitHostPort(raw); err == nil {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return p, fmt.Errorf("%q: bad port", s)
		}
		raw, p.port = h, n
	}
	h, err := canonicalHost(raw)
	if err != nil {
		return p, fmt.Errorf("%q: %v (write a host name or IP, e.g. \"example.com\" or \"*.example.com\")", s, err)
	}
	if p.wildcard && h.ip.IsValid() {
		return p, fmt.Errorf("%q: a wildcard needs a name, not an IP", s)
	}
	p.host = h.String()
	return p, nil
}

func (p pattern) match(h host, port int) bool {
	if p.port != 0 && p.port != port {
		return false
	}
	name := h.String()
	if p.wildcard {
		return h.name != "" && strings.HasSuffix(name, "."+p.host)
	}
	return name == p.host
}

// host is a URL host after the same canonicalisation a browser applies:
// either a name or an IP address.
type host struct {
	name string
	ip   netip.Addr
}

func (h host) String() string {
	if h.ip.IsValid() {
		return h.ip.String()
	}
	return h.name
}

// canonicalHost turns a URL host into what a WHATWG URL parser (Chromium)
// would connect to: "0x7f.1" and "2130706433" are 127.0.0.1, "[::ffff:7f00:1]"
// is 127.0.0.1, Unicode names go through IDNA. Go's own resolver would
// treat "0x7f000001" as a name, and a libc one as an address: deciding
// here removes that differential.
func canonicalHost(raw string) (host, error) {
	if raw == "" {
		return host{}, errors.New("empty host")
	}
	if strings.HasPrefix(raw, "[") {
		if !strings.HasSuffix(raw, "]") {
			return host{}, errors.New("unterminated IPv6 literal")
		}
		a, err := netip.ParseAddr(raw[1 : len(raw)-1])
		if err != nil || a.Zone() != "" || !a.Is6() {
			return host{}, fmt.Errorf("bad IPv6 literal %s", raw)
		}
		return host{ip: a}, nil
	}
	if a, err := netip.ParseAddr(raw); err == nil {
		if a.Zone() != "" {
			return host{}, errors.New("zoned address")
		}
		return host{ip: a}, nil
	}
	n, err := url.PathUnescape(raw)
	if err != nil {
		return host{}, err
	}
	n, err = idna.Lookup.ToASCII(n)
	if err != nil {
		// IDNA's Lookup profile refuses some names Chromium accepts
		// (underscores); retry without the strict STD3 rules.
		n2, err2 := idna.Punycode.ToASCII(strings.ToLower(n))
		if err2 != nil {
			return host{}, fmt.Errorf("bad host name: %v", err)
		}
		n = n2
	}
	n = strings.ToLower(n)
	if endsInNumber(n) {
		a, ok := parseWHATWGIPv4(n)
		if !ok {
			return host{}, fmt.Errorf("%q looks like an IPv4 address but is not one", raw)
		}
		return host{ip: a}, nil
	}
	n = strings.TrimSuffix(n, ".")
	if n == "" || len(n) > 253 {
		return host{}, errors.New("bad host name length")
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return host{}, fmt.Errorf("character %q not allowed in a host name", c)
		}
	}
	if strings.Contains(n, "..") || strings.HasPrefix(n, ".") {
		return host{}, errors.New("empty label in host name")
	}
	return host{name: n}, nil
}

// endsInNumber is the WHATWG URL "ends in a number" test.
func endsInNumber(n string) bool {
	parts := strings.Split(n, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	if l := strings.ToLower(last); strings.HasPrefix(l, "0x") && strings.Trim(l[2:], "0123456789abcdef") == "" {
		return true
	}
	return false
}

// parseWHATWGIPv4 parses decimal, octal and hex parts, with 1-4 parts.
func parseWHATWGIPv4(n string) (netip.Addr, bool) {
	parts := strings.Split(n, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base, digits := 10, p
		switch {
		case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) >= 2 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" {
			nums[i] = 0
			continue
		}
		v, err := strconv.ParseUint(digits, base, 64)
		if err != nil || v > 1<<32 {
			return netip.Addr{}, false
		}
		nums[i] = v
	}
	for _, v := range nums[:len(nums)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	ip := last
	for i, v := range nums[:len(nums)-1] {
		ip += v << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

// Blocked is a request the policy refused.
type Blocked struct {
	URL    string
	Reason string
}

func (b *Blocked) Error() string { return "blocked request: " + b.URL + " (" + b.Reason + ")" }

// Unreachable is a request the policy allowed that could not be made: the
// name does not resolve, or nothing answers at its address. Reason names
// neither the resolver nor the upstream proxy.
type Unreachable struct {
	URL    string
	Reason string
}

func (u *Unreachable) Error() string { return "unreachable: " + u.URL + " (" + u.Reason + ")" }

// lookupFailure says why a name did not resolve, without the resolver's
// address that Go's *net.DNSError carries.
func lookupFailure(name string, err error) string {
	var de *net.DNSError
	switch {
	case errors.As(err, &de) && de.IsNotFound:
		return "the name " + name + " does not exist (DNS: no such host)"
	case errors.As(err, &de) && de.IsTimeout:
		return "the DNS lookup of " + name + " timed out"
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return "the DNS lookup of " + name + " did not finish"
	}
	return "the DNS lookup of " + name + " failed"
}

// dialFailure says why a connection failed, in a few words.
func dialFailure(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens there"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return "the connection timed out"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset"
	}
	return "the connection failed"
}

// Resolver resolves names; *net.Resolver is one. Tests inject their own.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// rules is a compiled Policy.
type rules struct {
	policy  Policy
	key     string
	allowed []pattern
	only    []pattern
	ports   []int
	guard   *ssrf.Guardian
}

var privatePrefixes = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("fc00::/7"),
}

// metadataAddrs are cloud metadata services, named as such in refusals.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, DO, OpenStack
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS v6
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle
}

// deniedNames are refused by name, before any lookup: the names of local
// and metadata services. An operator can still list them in allowed_hosts.
var deniedNames = []string{"localhost", "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"}

func compile(p Policy) (*rules, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	// The compiled rules own their slices: the caller's policy may change
	// after compiling.
	p.Ports, p.AllowedHosts, p.OnlyHosts = slices.Clone(p.Ports), slices.Clone(p.AllowedHosts), slices.Clone(p.OnlyHosts)
	r := &rules{policy: p, key: p.Key(), ports: p.Ports}
	if len(r.ports) == 0 {
		r.ports = slices.Clone(defaultPorts[:])
	}
	for _, h := range p.AllowedHosts {
		pt, _ := parsePattern(h)
		r.allowed = append(r.allowed, pt)
	}
	for _, h := range p.OnlyHosts {
		pt, _ := parsePattern(h)
		r.only = append(r.only, pt)
	}
	// Ports are checked here, by the policy; the guardian checks addresses.
	r.guard = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())
	return r, nil
}

// checkName decides what can be decided before resolving. exempt means the
// host is in allowed_hosts: no address check follows.
func (r *rules) checkName(h host, port int) (exempt bool, reason string) {
	for _, p := range r.allowed {
		if p.match(h, port) {
			return true, ""
		}
	}
	if len(r.only) > 0 && !slices.ContainsFunc(r.only, func(p pattern) bool { return p.match(h, port) }) {
		return false, "host not in the personality's only_hosts"
	}
	if !slices.Contains(r.ports, port) {
		return false, fmt.Sprintf("port %d not allowed; allowed: %s", port, joinInts(r.ports))
	}
	if h.name != "" {
		for _, d := range deniedNames {
			if h.name == d || strings.HasSuffix(h.name, "."+d) {
				if strings.HasPrefix(d, "local") {
					return false, "loopback name"
				}
				return false, "metadata host"
			}
		}
	}
	return false, ""
}

// checkAddr checks one resolved (or literal) address.
func (r *rules) checkAddr(a netip.Addr) string {
	if a.Is4In6() {
		// ::ffff:a.b.c.d is a classic way around IPv4 deny lists; no
		// legitimate site needs it (code.dny.dev/ssrf denies it too).
		if why := r.checkAddr(a.Unmap()); why != "" {
			return why
		}
		return "IPv4-mapped IPv6 address"
	}
	if metadataAddrs[a] {
		return "metadata address"
	}
	if r.policy.AllowPrivate && slices.ContainsFunc(privatePrefixes, func(p netip.Prefix) bool { return p.Contains(a) }) {
		return ""
	}
	if err := r.guard.SafeAddr(a); err != nil {
		switch {
		case a.IsLoopback():
			return "loopback address"
		case a.IsUnspecified():
			return "unspecified address"
		case a.IsLinkLocalUnicast():
			return "link-local address"
		case a.IsPrivate() || slices.ContainsFunc(privatePrefixes, func(p netip.Prefix) bool { return p.Contains(a) }):
			return "private address"
		case a.IsMulticast():
			return "multicast address"
		case a.Is6() && netip.MustParsePrefix("64:ff9b::/32").Contains(a):
			return "NAT64 address"
		}
		return "reserved address"
	}
	return ""
}

// resolve checks host:port and returns the exact addresses to dial. Every
// address a name resolves to must pass: a mixed answer is refused whole.
func (r *rules) resolve(ctx context.Context, res Resolver, h host, port int, display string) ([]netip.Addr, error) {
	exempt, why := r.checkName(h, port)
	if why != "" {
		return nil, &Blocked{URL: display, Reason: why}
	}
	var addrs []netip.Addr
	if h.ip.IsValid() {
		addrs = []netip.Addr{h.ip}
	} else {
		got, err := res.LookupNetIP(ctx, "ip", h.name)
		if err != nil {
			return nil, &Unreachable{URL: display, Reason: lookupFailure(h.name, err)}
		}
		if len(got) == 0 {
			return nil, &Unreachable{URL: display, Reason: "the name " + h.name + " has no addresses"}
		}
		addrs = got
	}
	if !exempt {
		for _, a := range addrs {
			if why := r.checkAddr(a); why != "" {
				if !h.ip.IsValid() {
					why = fmt.Sprintf("%s resolves to %s, a %s", h.name, a.Unmap(), why)
				}
				return nil, &Blocked{URL: display, Reason: why}
			}
		}
	}
	return addrs, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// CheckURL refuses what must never be fetched or opened, before any
// network step: schemes other than http and https (file:, data:,
// javascript:, chrome:, ftp:...), credentials in the URL, and hosts that
// are not hosts. It returns the parsed URL.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, &Blocked{URL: capStr(raw, 200), Reason: "not a URL"}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return nil, &Blocked{URL: capStr(raw, 200), Reason: fmt.Sprintf("scheme %q not allowed: only http and https", u.Scheme)}
	}
	if u.User != nil {
		return nil, &Blocked{URL: capStr(redact(u), 200), Reason: "credentials in the URL are refused"}
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, &Blocked{URL: capStr(raw, 200), Reason: "no host"}
	}
	if strings.ContainsAny(u.Host, " \\@") {
		return nil, &Blocked{URL: capStr(raw, 200), Reason: "malformed host"}
	}
	if _, _, err := hostPort(u); err != nil {
		return nil, &Blocked{URL: capStr(raw, 200), Reason: err.Error()}
	}
	return u, nil
}

func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// hostPort canonicalises a URL's host and port.
func hostPort(u *url.URL) (host, int, error) {
	hs := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		hs = "[" + hs + "]"
	}
	h, err := canonicalHost(hs)
	if err != nil {
		return host{}, 0, err
	}
	port := 80
	if strings.EqualFold(u.Scheme, "https") || strings.EqualFold(u.Scheme, "wss") {
		port = 443
	}
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 {
			return host{}, 0, fmt.Errorf("bad port %q", ps)
		}
		port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return host{}, 0, errors.New("empty port")
	}
	return h, port, nil
}

func capStr(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Package safenet makes outbound connections to addresses that configuration names (CSV URLs, event
// subscribers) safe by default: it refuses loopback, private, link-local and reserved addresses at connect
// time, after name resolution, unless an entry allows them.
package safenet

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// blockedPrefixes are the non-public ranges that netip's predicates do not already cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT, often cloud-internal
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64: may embed a private IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2002::/16"),      // 6to4: embeds an IPv4 address
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
}

// PublicAddr reports whether ip is a public unicast address.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// RefusePrivate is a net.Dialer Control: it runs on every connection dialled, after name resolution.
// Checking the address actually dialled, rather than the URL's host name, also covers a name that
// resolves publicly when validated and privately when used (DNS rebinding), and every redirect.
func RefusePrivate(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: not an IP address", host)
	}
	if !PublicAddr(ip) {
		return fmt.Errorf("refusing to connect to %s: a loopback, private or reserved address (allow_private: true permits it)", ip.Unmap())
	}
	return nil
}

// Dialer is a dialer with bounded connection time that refuses non-public addresses unless allowPrivate.
// A client using it must not take a proxy from the environment: the proxy would be the only address
// dialled, and the check would not see the real one.
func Dialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = RefusePrivate
	}
	return d
}

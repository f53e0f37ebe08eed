package safenet

import (
	"net"
	"net/netip"
	"strings"
	"testing"
)

func TestPublicAddr(t *testing.T) {
	tests := map[string]bool{
		"8.8.8.8": true, "2001:4860:4860::8888": true, "93.184.216.34": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "::": false, "fd00::1": false,
		"fe80::1": false, "::ffff:10.0.0.1": false, "::ffff:127.0.0.1": false, "224.0.0.1": false,
		"255.255.255.255": false, "64:ff9b::a00:1": false, "2002:a00:1::": false, "198.18.0.1": false,
	}
	for s, want := range tests {
		t.Run(s, func(t *testing.T) {
			if got := PublicAddr(netip.MustParseAddr(s)); got != want {
				t.Errorf("PublicAddr(%s) = %v, want %v", s, got, want)
			}
		})
	}
}

// A real listener on loopback: refused at connect time by default, reached when private addresses are
// allowed; a name that resolves to it ("localhost") is refused the same way.
func TestDialerRefusesLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, c := range []struct {
		name         string
		addr         string
		allowPrivate bool
		refused      bool
	}{
		{"loopback refused", ln.Addr().String(), false, true},
		{"a name resolving to loopback refused", net.JoinHostPort("localhost", port), false, true},
		{"loopback allowed", ln.Addr().String(), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := Dialer(c.allowPrivate).DialContext(t.Context(), "tcp", c.addr)
			if conn != nil {
				conn.Close()
			}
			if c.refused != (err != nil && strings.Contains(err.Error(), "refusing to connect")) {
				t.Fatalf("dial %s (allow_private %v): %v", c.addr, c.allowPrivate, err)
			}
		})
	}
}

package console

import (
	"net"
	"strings"
)

// SignInLink is the address of a sign-in link token: under publicURL when set, otherwise on the listen
// address, where a wildcard host becomes localhost so that the link opens on this machine.
func SignInLink(publicURL, listen, token string) string {
	base := strings.TrimRight(publicURL, "/")
	if base == "" {
		host, port, err := net.SplitHostPort(listen)
		if err != nil {
			host, port = listen, ""
		}
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		if port != "" {
			host = net.JoinHostPort(host, port)
		}
		base = "http://" + host
	}
	return base + "/signin/link?token=" + token
}

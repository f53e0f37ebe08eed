package email

import (
	"strings"
	"testing"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
)

func authHeader(values ...string) mail.Header {
	var h textproto.Header
	for i := len(values) - 1; i >= 0; i-- { // Add puts a field on top, as a receiving server does
		h.Add("Authentication-Results", values[i])
	}
	return mail.Header{Header: message.Header{Header: h}}
}

func TestAuthFailure(t *testing.T) {
	const addr = "alice@example.com"
	const noPass = "no DMARC, SPF or DKIM pass for example.com from mx.example.com for " + addr
	tests := []struct {
		name, authserv string
		headers        []string
		want           string
	}{
		{"no header", "", nil, ""},
		{"dmarc pass", "", []string{"mx.example.com; dmarc=pass header.from=example.com"}, ""},
		{"dmarc fail", "", []string{"mx.example.com; dmarc=fail (p=reject) header.from=example.com"}, "DMARC failed for " + addr},
		{"dmarc fail, in capitals", "", []string{"MX.example.com; DMARC=FAIL header.from=Example.COM"}, "DMARC failed for " + addr},
		{"dmarc fail of another domain", "", []string{"mx.example.com; dmarc=fail header.from=other.example"}, ""},
		{"dmarc pass outweighs spf and dkim", "", []string{"mx.example.com; spf=fail smtp.mailfrom=example.com; dkim=fail header.d=example.com; dmarc=pass header.from=example.com"}, ""},
		{"spf and dkim fail", "", []string{"mx.example.com; spf=fail smtp.mailfrom=alice@example.com; dkim=fail header.d=example.com"}, "SPF and DKIM failed for " + addr},
		{"spf softfail, no signature", "", []string{"mx.example.com; spf=softfail smtp.mailfrom=example.com; dkim=none"}, "SPF and DKIM failed for " + addr},
		{"spf fail, dkim pass", "", []string{"mx.example.com; spf=fail smtp.mailfrom=example.com; dkim=pass header.d=example.com"}, ""},
		{"spf fail, dkim of a subdomain passes", "", []string{"mx.example.com; spf=fail smtp.mailfrom=example.com; dkim=pass header.d=mail.example.com"}, ""},
		{"spf fail, dkim of another domain passes", "", []string{"mx.example.com; spf=fail smtp.mailfrom=example.com; dkim=pass header.d=mailer.example.net"}, "SPF and DKIM failed for " + addr},
		{"spf fail, no dkim checked", "", []string{"mx.example.com; spf=fail smtp.mailfrom=example.com"}, ""},
		{"spf fail of a bounce domain", "", []string{"mx.example.com; spf=fail smtp.mailfrom=bounces.esp.example; dkim=fail header.d=example.com"}, ""},
		{"comments hide nothing", "", []string{"mx.example.com; dkim=pass (dmarc=fail; fake) header.d=example.com; dmarc=pass (header.from=x) header.from=example.com"}, ""},
		{"topmost counts, forged pass below", "", []string{"mx.example.com; dmarc=fail header.from=example.com", "mx.example.com; dmarc=pass header.from=example.com"}, "DMARC failed for " + addr},
		{"topmost counts, forged fail below", "", []string{"mx.example.com; dmarc=pass header.from=example.com", "mx.example.com; dmarc=fail header.from=example.com"}, ""},
		{"authserv-id picks its header", "mx.example.com", []string{"relay.example.net; dmarc=pass header.from=example.com", "mx.example.com; dmarc=fail header.from=example.com"}, "DMARC failed for " + addr},
		{"authserv-id with version", "mx.example.com", []string{"mx.example.com 1; dmarc=pass header.from=example.com"}, ""},
		{"authserv-id missing", "mx.example.com", []string{"relay.example.net; dmarc=pass header.from=example.com"}, "no Authentication-Results from mx.example.com for " + addr},
		{"authserv-id, no header at all", "mx.example.com", nil, "no Authentication-Results from mx.example.com for " + addr},
		{"none", "", []string{"mx.example.com; none"}, ""},
		// With an authserv-id only an aligned pass of that server trusts the address.
		{"authserv-id, dmarc pass", "mx.example.com", []string{"mx.example.com; dmarc=pass header.from=example.com"}, ""},
		{"authserv-id, aligned spf pass", "mx.example.com", []string{"mx.example.com; spf=pass smtp.mailfrom=alice@example.com; dmarc=none header.from=example.com"}, ""},
		{"authserv-id, spf pass of a subdomain", "mx.example.com", []string{"mx.example.com; spf=pass smtp.mailfrom=bounce.example.com"}, ""},
		{"authserv-id, aligned dkim pass", "mx.example.com", []string{"mx.example.com; dkim=pass header.d=example.com; spf=none"}, ""},
		{"authserv-id, dkim pass by header.i", "mx.example.com", []string{"mx.example.com; dkim=pass header.i=@example.com"}, ""},
		{"authserv-id, spf pass of the forger's domain", "mx.example.com", []string{"mx.example.com; spf=pass smtp.mailfrom=mallory@evil.example; dmarc=none header.from=example.com"}, noPass},
		{"authserv-id, dkim pass of the forger's domain", "mx.example.com", []string{"mx.example.com; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=evil.example"}, noPass},
		{"authserv-id, dmarc pass of another domain", "mx.example.com", []string{"mx.example.com; dmarc=pass header.from=evil.example"}, noPass},
		{"authserv-id, a pass that names no domain", "mx.example.com", []string{"mx.example.com; spf=pass; dkim=pass"}, noPass},
		{"authserv-id, none", "mx.example.com", []string{"mx.example.com; none"}, noPass},
		{"authserv-id, results hidden in comments", "mx.example.com", []string{"mx.example.com; spf=neutral (dmarc=pass header.from=example.com) smtp.mailfrom=example.com"}, noPass},
		{"authserv-id, another server's pass ignored", "mx.example.com", []string{"relay.example.net; dmarc=pass header.from=example.com", "mx.example.com; dmarc=none header.from=example.com"}, noPass},
		{"authserv-id, forged pass below its own header", "mx.example.com", []string{"mx.example.com; dmarc=none header.from=example.com", "mx.example.com; dmarc=pass header.from=example.com"}, noPass},
		{"authserv-id in another case", "mx.example.com", []string{"MX.Example.COM; dmarc=pass header.from=example.com"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := authFailure(authHeader(tt.headers...), addr, tt.authserv); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestForwardTrust: only a colleague's forward credits the senders inside it, and a colleague's address that
// the receiving server found forged makes the message its outer sender's own: that address is the customer,
// there is no reporter, and the reason is logged.
func TestForwardTrust(t *testing.T) {
	const spoof = "Subject: Fwd: Cancel the contract\r\nMessage-ID: <t1@x.example>\r\nContent-Type: text/plain\r\n\r\n" +
		"Please log this.\r\n\r\n---------- Forwarded message ---------\r\nFrom: Big Boss <ceo@bigcustomer.example>\r\n" +
		"Date: Mon, Nov 3, 2026 at 8:02 AM\r\nSubject: Cancel the contract\r\nTo: <support@example.com>\r\n\r\nCancel it today.\r\n"
	tests := []struct {
		name, from, auth, authserv string
		internal                   []string
		customer, reporter, why    string
	}{
		{"colleague", "alice@example.com", "", "", goldenInternal, "ceo@bigcustomer.example", "alice@example.com", ""},
		{"colleague, authenticated", "alice@example.com", "mx.example.com; dmarc=pass header.from=example.com", "mx.example.com", goldenInternal, "ceo@bigcustomer.example", "alice@example.com", ""},
		{"colleague's address forged", "alice@example.com", "mx.example.com; dmarc=fail header.from=example.com", "", goldenInternal, "alice@example.com", "", "DMARC failed for alice@example.com"},
		{"colleague forged, no header, authserv-id set", "alice@example.com", "", "mx.example.com", goldenInternal, "alice@example.com", "",
			"no Authentication-Results from mx.example.com for alice@example.com"},
		{"colleague forged from the forger's own domain, authserv-id set", "alice@example.com",
			"mx.example.com; spf=pass smtp.mailfrom=mallory@evil.example; dmarc=none header.from=example.com", "mx.example.com", goldenInternal,
			"alice@example.com", "", "no DMARC, SPF or DKIM pass for example.com from mx.example.com for alice@example.com"},
		{"stranger", "mallory@evil.example", "", "", goldenInternal, "mallory@evil.example", "", ""},
		{"no internal domains", "alice@example.com", "", "", nil, "alice@example.com", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := "From: Someone <" + tt.from + ">\r\n"
			if tt.auth != "" {
				raw = "Authentication-Results: " + tt.auth + "\r\n" + raw
			}
			m, err := NewParser(tt.internal).withAuthservID(tt.authserv).Parse([]byte(raw + spoof))
			if err != nil {
				t.Fatal(err)
			}
			if m.CustomerEmail != tt.customer || m.Reporter != tt.reporter || m.Distrusted != tt.why {
				t.Errorf("customer %q reporter %q distrusted %q, want %q %q %q", m.CustomerEmail, m.Reporter,
					m.Distrusted, tt.customer, tt.reporter, tt.why)
			}
			if m.Title != "Cancel the contract" {
				t.Errorf("title %q", m.Title)
			}
		})
	}
}

// FuzzAuthResults: any Authentication-Results value is read without panicking, and no more statements are
// taken from it than the bound.
func FuzzAuthResults(f *testing.F) {
	f.Add("mx.example.com; dkim=pass (2048-bit key) header.d=example.com; spf=fail smtp.mailfrom=a@example.com; dmarc=fail header.from=example.com")
	f.Add(`mx; none`)
	f.Add(`x (a (nested \) comment) ;"quoted; value" ; dmarc=fail header.from="example.com"`)
	f.Add(strings.Repeat("a=b;", 100))
	f.Fuzz(func(t *testing.T, v string) {
		_, res := parseAuthResults(v)
		if len(res) >= maxAuthStatements {
			t.Fatalf("%d statements read, bound %d", len(res), maxAuthStatements)
		}
		_ = authFailure(authHeader(v), "alice@example.com", "")
	})
}

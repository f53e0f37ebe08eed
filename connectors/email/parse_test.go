package email

import (
	"os"
	"strings"
	"testing"
)

func TestCleanSubject(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Export broken", "Export broken"},
		{"Re: Export broken", "Export broken"},
		{"RE: Fwd: FW: AW: WG: TR: RV: SV: Antw: Export broken", "Export broken"},
		{"re:re:Export broken", "Export broken"},
		{"Re[3]: Re(2): Export broken", "Export broken"},
		{"TR : Problème", "Problème"},
		{"  Fwd:   spaced   out  ", "spaced out"},
		{"回复：导出失败", "导出失败"},
		{"Re:", ""},
		{"Regarding: the export", "Regarding: the export"},
		{"Reply needed: export", "Reply needed: export"},
		{"Antwort an: Jane", "Antwort an: Jane"},
		{"Export: Re: broken", "Export: Re: broken"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := cleanSubject(tt.in); got != tt.want {
				t.Errorf("cleanSubject(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIsForwardSubject(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Fwd: x", true}, {"FW: x", true}, {"WG: x", true}, {"TR : x", true}, {"RV: x", true},
		{"Re: Fwd: x", true}, {"Re: x", false}, {"AW: x", false}, {"x", false}, {"Fwdx: y", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := isForwardSubject(tt.in); got != tt.want {
				t.Errorf("isForwardSubject(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// msg builds a small message with extra header lines; the body is fixed.
func msg(headers ...string) []byte {
	h := "From: Jane Doe <jane@acme.com>\r\nTo: feedback@example.com\r\nSubject: Hello\r\nMessage-ID: <m1@acme.com>\r\n"
	for _, l := range headers {
		h += l + "\r\n"
	}
	return []byte(h + "\r\nSome feedback.\r\n")
}

func TestSkipReason(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		want    string
	}{
		{"plain", nil, ""},
		{"auto-submitted no", []string{"Auto-Submitted: no"}, ""},
		{"auto-submitted auto-replied", []string{"Auto-Submitted: auto-replied"}, SkipAutoSubmitted},
		{"auto-submitted with params", []string{"Auto-Submitted: Auto-Generated; owner-email=x@y"}, SkipAutoSubmitted},
		{"x-autoreply", []string{"X-Autoreply: yes"}, SkipAutoReply},
		{"x-autorespond", []string{"X-Autorespond: 1"}, SkipAutoReply},
		{"precedence bulk", []string{"Precedence: bulk"}, SkipPrecedence},
		{"precedence junk", []string{"Precedence: JUNK"}, SkipPrecedence},
		{"precedence list", []string{"Precedence: list"}, SkipPrecedence},
		{"precedence auto_reply", []string{"Precedence: auto_reply"}, SkipPrecedence},
		{"precedence first-class", []string{"Precedence: first-class"}, ""},
		{"null return path", []string{"Return-Path: <>"}, SkipNullReturnPath},
		{"null return path spaced", []string{"Return-Path: < >"}, SkipNullReturnPath},
		{"return path", []string{"Return-Path: <jane@acme.com>"}, ""},
		{"report", []string{"Content-Type: multipart/report; report-type=delivery-status; boundary=b"}, SkipReport},
	}
	p := NewParser(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := p.Parse(msg(tt.headers...))
			if err != nil {
				t.Fatal(err)
			}
			if m.SkipReason != tt.want {
				t.Errorf("skip reason = %q, want %q", m.SkipReason, tt.want)
			}
		})
	}
	for _, from := range []string{"MAILER-DAEMON@mx.acme.com", "postmaster@acme.com", "Mail Delivery System <Mailer-Daemon@acme.com>"} {
		t.Run(from, func(t *testing.T) {
			raw := strings.Replace(string(msg()), "Jane Doe <jane@acme.com>", from, 1)
			m, err := p.Parse([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if m.SkipReason != SkipDaemon {
				t.Errorf("skip reason = %q, want %q", m.SkipReason, SkipDaemon)
			}
		})
	}
}

func TestInternalDomains(t *testing.T) {
	tests := []struct {
		name     string
		internal []string
		from     string
		customer string
		reporter string
	}{
		{"external", []string{"example.com"}, "jane@acme.com", "jane@acme.com", ""},
		{"internal", []string{"example.com"}, "alice@example.com", "", "alice@example.com"},
		{"subdomain", []string{"example.com"}, "alice@eu.example.com", "", "alice@eu.example.com"},
		{"case and @ prefix", []string{" @Example.COM "}, "Alice@EXAMPLE.com", "", "alice@example.com"},
		{"suffix is not a subdomain", []string{"example.com"}, "jane@notexample.com", "jane@notexample.com", ""},
		{"no internal domains", nil, "alice@example.com", "alice@example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := strings.Replace(string(msg()), "jane@acme.com", tt.from, 1)
			m, err := NewParser(tt.internal).Parse([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if m.CustomerEmail != tt.customer || m.Reporter != tt.reporter {
				t.Errorf("customer %q reporter %q, want %q and %q", m.CustomerEmail, m.Reporter, tt.customer, tt.reporter)
			}
		})
	}
}

func TestDedupKey(t *testing.T) {
	read := func(name string) Message {
		t.Helper()
		raw, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewParser(goldenInternal).Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	t.Run("same Message-ID, same key", func(t *testing.T) {
		a, b := read("duplicate_message_id_a.eml"), read("duplicate_message_id_b.eml")
		const want = "email:dup-0007@pied-piper.com <raj@pied-piper.com> "
		if a.DedupKey != b.DedupKey || !strings.HasPrefix(a.DedupKey, want) || len(a.DedupKey) != len(want)+32 {
			t.Errorf("keys %q and %q, want both %s and a digest", a.DedupKey, b.DedupKey, want)
		}
	})
	// A forger who sends first with the genuine message's Message-ID and From must not have the genuine one
	// skipped as its duplicate: the keys differ as soon as the message says something else, or its sender
	// was trusted differently. Before, the key was the Message-ID and the sender only.
	t.Run("same Message-ID and sender, other content or trust, another key", func(t *testing.T) {
		raw, err := os.ReadFile("testdata/duplicate_message_id_a.eml")
		if err != nil {
			t.Fatal(err)
		}
		genuine, err := NewParser(goldenInternal).Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		for name, forged := range map[string][]byte{
			"other text":    []byte(strings.Replace(string(raw), "Every webhook", "Please ignore this. Every webhook", 1)),
			"other subject": []byte(strings.Replace(string(raw), "Subject: ", "Subject: Cancel: ", 1)),
			"other date":    []byte(strings.Replace(string(raw), "Date: Wed, 5 Nov", "Date: Thu, 6 Nov", 1)),
		} {
			m, err := NewParser(goldenInternal).Parse(forged)
			if err != nil {
				t.Fatal(err)
			}
			if m.MessageID != genuine.MessageID || m.DedupKey == genuine.DedupKey {
				t.Errorf("%s: forged key %q, genuine key %q: want different keys for one Message-ID and sender", name, m.DedupKey, genuine.DedupKey)
			}
		}
		const fwd = "From: Alice <alice@example.com>\r\nMessage-ID: <fw-1@example.com>\r\nSubject: Fwd: Export\r\n\r\n" +
			"---------- Forwarded message ---------\r\nFrom: Jane <jane@acme-corp.com>\r\nDate: Mon, Nov 3, 2026\r\n" +
			"Subject: Export\r\nTo: <support@example.com>\r\n\r\nThe export fails.\r\n"
		trusted, err1 := NewParser(goldenInternal).withAuthservID("mx.example.com").Parse(
			[]byte("Authentication-Results: mx.example.com; dmarc=pass header.from=example.com\r\n" + fwd))
		forged, err2 := NewParser(goldenInternal).withAuthservID("mx.example.com").Parse([]byte(fwd))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if forged.Distrusted == "" || trusted.Distrusted != "" || forged.DedupKey == trusted.DedupKey {
			t.Errorf("a forged forward shares the key of the trusted one: %q / %q (%q)", forged.DedupKey, trusted.DedupKey, forged.Distrusted)
		}
	})
	t.Run("same Message-ID from a stranger, another key", func(t *testing.T) {
		raw, err := os.ReadFile("testdata/duplicate_message_id_a.eml")
		if err != nil {
			t.Fatal(err)
		}
		forged := strings.ReplaceAll(string(raw), "raj@pied-piper.com", "mallory@evil.example")
		a, err1 := NewParser(goldenInternal).Parse(raw)
		m, err2 := NewParser(goldenInternal).Parse([]byte(forged))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if m.DedupKey == a.DedupKey || m.MessageID != a.MessageID {
			t.Errorf("stranger's key %q, sender's key %q: want different keys for one Message-ID", m.DedupKey, a.DedupKey)
		}
	})
	t.Run("missing Message-ID, stable key", func(t *testing.T) {
		raw, err := os.ReadFile("testdata/missing_message_id.eml")
		if err != nil {
			t.Fatal(err)
		}
		// The same message delivered once more gains trace headers; its key must not change.
		again := append([]byte("Received: from relay.example.net by mx.example.com; Wed, 5 Nov 2026 13:01:00 +0100\r\n"), raw...)
		p := NewParser(goldenInternal)
		m1, err1 := p.Parse(raw)
		m2, err2 := p.Parse(again)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !strings.HasPrefix(m1.DedupKey, "email:sha256:") || m1.DedupKey != m2.DedupKey {
			t.Errorf("keys %q and %q, want one email:sha256: key", m1.DedupKey, m2.DedupKey)
		}
		other := strings.Replace(string(raw), "blank pages", "empty pages", 1)
		m3, err := p.Parse([]byte(other))
		if err != nil {
			t.Fatal(err)
		}
		if m3.DedupKey == m1.DedupKey {
			t.Error("a different message without Message-ID got the same key")
		}
	})
}

func TestLongTitleFromBody(t *testing.T) {
	raw := "From: jane@acme.com\r\nSubject:\r\n\r\n" + strings.Repeat("word ", 300) + "\r\n"
	m, err := NewParser(nil).Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(m.Title)); n > maxTitle || !strings.HasSuffix(m.Title, "…") {
		t.Errorf("title has %d runes (%q…), want at most %d ending in …", n, m.Title[:20], maxTitle)
	}
}

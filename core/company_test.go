package core

import "testing"

func TestCompanyResolver(t *testing.T) {
	r := NewCompanyResolver([]string{"corp-mail.example"}, []string{"hey.com"})
	cases := []struct {
		email, domain, name string
		ok                  bool
	}{
		{"jane@acme.com", "acme.com", "Acme", true},
		{"jane@eu.mail.acme.co.uk", "acme.co.uk", "Acme", true},
		{"bob@acme-corp.co.uk", "acme-corp.co.uk", "Acme Corp", true},
		{"bob@big_data-labs.io", "big_data-labs.io", "Big Data Labs", true},
		{"Jane@ACME.COM", "acme.com", "Acme", true},
		{"x@bücher.de", "xn--bcher-kva.de", "Bücher", true},
		{"x@xn--bcher-kva.de", "xn--bcher-kva.de", "Bücher", true},
		{"me@gmail.com", "", "", false},
		{"me@hotmail.co.uk", "", "", false},
		{"me@yahoo.fr", "", "", false},
		{"me@gmx.net", "", "", false},
		{"me@corp-mail.example", "", "", false},
		{"me@hey.com", "hey.com", "Hey", true}, // removed from the personal list by config
		{"me@localhost", "", "", false},
		{"not-an-address", "", "", false},
	}
	for _, c := range cases {
		d, n, ok := r.Resolve(c.email)
		if d != c.domain || n != c.name || ok != c.ok {
			t.Errorf("Resolve(%q) = %q, %q, %v; want %q, %q, %v", c.email, d, n, ok, c.domain, c.name, c.ok)
		}
	}
}

func TestParseEmail(t *testing.T) {
	good := []string{"jane@acme.com", "  jane@acme.com ", "j.doe+tag@sub.acme.co.uk"}
	bad := []string{"", "jane", "Jane <jane@acme.com>", "a@acme.com, b@acme.com", "jane@", "@acme.com", "jane@localhost", "jane doe@acme.com"}
	for _, s := range good {
		if _, err := ParseEmail(s); err != nil {
			t.Errorf("ParseEmail(%q): %v", s, err)
		}
	}
	for _, s := range bad {
		if got, err := ParseEmail(s); err == nil {
			t.Errorf("ParseEmail(%q) = %q, want an error", s, got)
		}
	}
}

func FuzzCompanyResolver(f *testing.F) {
	for _, s := range []string{"jane@acme.com", "x@bücher.de", "a@b", "@", "x@.com", "x@xn--.com", "x@a..b.com"} {
		f.Add(s)
	}
	r := NewCompanyResolver(nil, nil)
	f.Fuzz(func(t *testing.T, email string) {
		d, n, ok := r.Resolve(email)
		if ok != (d != "") || ok && n == "" {
			t.Fatalf("Resolve(%q) = %q, %q, %v: inconsistent", email, d, n, ok)
		}
	})
}

func TestCompanyDomain(t *testing.T) {
	for in, want := range map[string]string{
		"globex.com":                     "globex.com",
		"https://globex.com/":            "globex.com",
		"HTTPS://WWW.Globex.com/about?x": "globex.com",
		"sales@globex.com":               "globex.com",
		"eu.acme.co.uk":                  "acme.co.uk",
		"globex.com:443":                 "globex.com",
		"bücher.de":                      "xn--bcher-kva.de",
		"globex":                         "",
		"":                               "",
		"globex.com\\evil":               "",
		"glo bex.com":                    "",
	} {
		got, err := companyDomain(in)
		if want == "" {
			if err == nil {
				t.Errorf("%q: accepted as %q", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
}

package core

import "testing"

func TestNormalizeSource(t *testing.T) {
	cases := []struct{ in, def, want string }{
		{"", "", "Manual"},
		{"   ", "", "Manual"},
		{"", "CSV", "CSV"},
		{"slack", "", "Slack"},
		{"E-Mail", "", "Email"},
		{"e_mail", "", "Email"},
		{"IMAP", "", "Email"},
		{"inbox", "", "Email"},
		{"mail", "", "Email"},
		{"CSV import", "", "CSV"},
		{"spreadsheet", "", "CSV"},
		{"Excel", "", "CSV"},
		{"ms-teams", "", "Microsoft Teams"},
		{"Teams", "", "Microsoft Teams"},
		{"microsoft.teams", "", "Microsoft Teams"},
		{"website", "", "Web"},
		{"Portal", "", "Web"},
		{"REST", "", "API"},
		{"chrome", "", "Chrome Extension"},
		{"chrome-extension", "", "Chrome Extension"},
		{"HUBSPOT", "", "HubSpot"},
		{"hub spot", "", "HubSpot"},
		{"zendesk", "", "Zendesk"},
		{"carrier pigeon", "", "Other"},
		{"other", "", "Other"},
	}
	for _, c := range cases {
		if got := NormalizeSource(c.in, c.def); got != c.want {
			t.Errorf("NormalizeSource(%q, %q) = %q, want %q", c.in, c.def, got, c.want)
		}
	}
}

func FuzzNormalizeSource(f *testing.F) {
	for _, s := range append([]string{"", "e-mail", "\x00", "ﬀ"}, Sources...) {
		f.Add(s)
	}
	canonical := map[string]bool{}
	for _, s := range Sources {
		canonical[s] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := NormalizeSource(s, "")
		if !canonical[got] {
			t.Fatalf("NormalizeSource(%q) = %q, not a canonical label", s, got)
		}
		if NormalizeSource(got, "") != got {
			t.Fatalf("normalizing %q is not idempotent", got)
		}
	})
}

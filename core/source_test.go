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

// TestSourceSetAdd: labels added by configuration are chosen like the canonical ones, and a connector's
// own label (def) is normalized too. Before the fix Phone became Other, and a def outside the set (a
// webhook entry's "RSS Reader") was stored as written.
func TestSourceSetAdd(t *testing.T) {
	set, err := NewSourceSet([]string{"Phone", " Chat ", "Twitter"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, def, want string }{
		{"phone", "", "Phone"},
		{"CHAT", "", "Chat"},
		{"twit-ter", "", "Twitter"},
		{"e-mail", "", "Email"},
		{"fax", "", "Other"},
		{"", "twitter", "Twitter"},
		{"", "RSS Reader", "Other"},
		{"", "", "Manual"},
	}
	for _, c := range cases {
		t.Run(c.in+"/"+c.def, func(t *testing.T) {
			if got := set.Normalize(c.in, c.def); got != c.want {
				t.Fatalf("Normalize(%q, %q) = %q, want %q", c.in, c.def, got, c.want)
			}
		})
	}
	if got := NormalizeSource("", "RSS Reader"); got != "Other" {
		t.Errorf("the canonical set stores %q for an unknown default", got)
	}
	labels := set.Labels()
	if len(labels) != len(Sources)+3 || labels[len(labels)-2] != "Chat" {
		t.Errorf("labels %v", labels)
	}
	for _, bad := range [][]string{{" "}, {"e-mail"}, {"Phone", "phone"}, {string(make([]rune, 51))}} {
		if _, err := NewSourceSet(bad); err == nil {
			t.Errorf("NewSourceSet(%q) accepted", bad)
		}
	}
}

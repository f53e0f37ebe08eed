package core

import "testing"

func TestScrubber(t *testing.T) {
	sc := NewScrubber("Jane@Acme.com", "Jane  Doe")
	cases := []struct{ name, in, want string }{
		{"address any case", "mail JANE@acme.COM now", "mail [removed] now"},
		{"end of sentence", "write to jane@acme.com.", "write to [removed]."},
		{"longer address stays", "mary.jane@acme.com and jane@acme.com.au", "mary.jane@acme.com and jane@acme.com.au"},
		{"name", "Jane Doe said: jane doe's idea", "[removed] said: [removed]'s idea"},
		{"name inside a word stays", "Jane Doesburg", "Jane Doesburg"},
		{"mailto", `<a href="mailto:jane@acme.com">x</a>`, `<a href="mailto:[removed]">x</a>`},
		{"nothing", "plain", "plain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sc.Text(c.in); got != c.want {
				t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	t.Run("escaped name in html", func(t *testing.T) {
		sc := NewScrubber("o@x.io", "Ann O'Brien")
		if got := sc.HTML("<p>Ann O&#39;Brien</p>"); got != "<p>[removed]</p>" {
			t.Errorf("HTML = %q", got)
		}
	})
}

func TestErasedDedupKey(t *testing.T) {
	k := ErasedDedupKey([]byte("s"), "ws1", "email:<m@x> <jane@acme.com>")
	if k == "" || k[:len(ErasedKeyPrefix)] != ErasedKeyPrefix || ErasedDedupKey([]byte("s"), "ws1", k) != k {
		t.Fatalf("erased key %q is not stable", k)
	}
	if k == ErasedDedupKey([]byte("t"), "ws1", "email:<m@x> <jane@acme.com>") || k == ErasedDedupKey([]byte("s"), "ws2", "email:<m@x> <jane@acme.com>") {
		t.Fatal("the key does not depend on the secret and the workspace")
	}
}

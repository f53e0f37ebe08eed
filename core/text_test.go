package core

import (
	"strings"
	"testing"
)

func TestHTMLToText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"<p>Hello</p><p>World</p>", "Hello\n\nWorld"},
		{"a<br>b", "a\nb"},
		{"<ul><li>one</li><li>two</li></ul>", "one\n\ntwo"},
		{"Tom &amp; Jerry &lt;3", "Tom & Jerry <3"},
		{"<b>bold</b> and <i>it</i>", "bold and it"},
		{"x<script>alert(1)</script>y", "xy"},
		{"<style>p{color:red}</style>text", "text"},
	}
	for _, c := range cases {
		if got := HTMLToText(c.in); got != c.want {
			t.Errorf("HTMLToText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSanitize(t *testing.T) {
	s := NewSanitizer()
	hostile := []string{
		`<script>alert(1)</script>`,
		`<img src=x onerror=alert(1)>`,
		`<a href="javascript:alert(1)">x</a>`,
		`<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>`,
		`<div style="background:url(javascript:alert(1))">x</div>`,
		`<svg onload=alert(1)>`,
		`<iframe src="https://evil.example"></iframe>`,
	}
	for _, h := range hostile {
		out := strings.ToLower(s.Sanitize(h))
		for _, bad := range []string{"<script", "onerror", "onload", "javascript:", "data:", "<iframe", "style="} {
			if strings.Contains(out, bad) {
				t.Errorf("Sanitize(%q) = %q keeps %q", h, out, bad)
			}
		}
	}
	if got := s.Sanitize(`<p>Hi <a href="https://acme.com">there</a></p>`); !strings.Contains(got, `href="https://acme.com"`) {
		t.Errorf("safe link lost: %q", got)
	}
}

func TestFold(t *testing.T) {
	pairs := [][2]string{{"STRASSE", "straße"}, {"ÉCOLE", "école"}, {"ΣΊΣΥΦΟΣ", "σίσυφος"}}
	for _, p := range pairs {
		if Fold(p[0]) != Fold(p[1]) {
			t.Errorf("Fold(%q)=%q differs from Fold(%q)=%q", p[0], Fold(p[0]), p[1], Fold(p[1]))
		}
	}
}

func FuzzHTMLToText(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<<<>>>", "&#x0;", "<script>", "<a href='x'>y", strings.Repeat("<div>", 50)} {
		f.Add(s)
	}
	s := NewSanitizer()
	f.Fuzz(func(t *testing.T, in string) {
		out := HTMLToText(s.Sanitize(in))
		if strings.Contains(strings.ToLower(out), "<script") && !strings.Contains(strings.ToLower(in), "&lt;script") {
			t.Fatalf("script tag survived: %q → %q", in, out)
		}
	})
}

func TestStripTags(t *testing.T) {
	cases := map[string]string{
		"a < b and c > d":                "a < b and c > d",
		"<script>alert(1)</script>":      "alert(1)",
		"<<script>script>x</script>":     "x",
		"keep 3 <= 4":                    "keep 3 <= 4",
		"see <https://acme.com/x>":       "see <https://acme.com/x>",
		"From: Jane <jane@acme.com>":     "From: Jane <jane@acme.com>",
		"a<!-- hidden -->b":              "ab",
		"<img src=x onerror=alert(1)//>": "",
	}
	for in, want := range cases {
		if got := StripTags(in); got != want {
			t.Errorf("StripTags(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanText(t *testing.T) {
	title, desc := "a\x00b", "ok \xff\xfe end"
	cleanText(&title, &desc)
	if title != "ab" || desc != "ok \uFFFD end" {
		t.Fatalf("cleanText = %q, %q", title, desc)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"héllo wörld", 6, "héllo…"},
		{"ab   cdef", 5, "ab…"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Truncate(tt.in, tt.max, "…"); got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

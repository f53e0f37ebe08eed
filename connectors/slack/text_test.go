package slack

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestParseText(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Command
		err  error
	}{
		{"empty", "", Command{Help: true}, nil},
		{"blank", " \n\t ", Command{Help: true}, nil},
		{"help", "help", Command{Help: true}, nil},
		{"help upper", " HELP ", Command{Help: true}, nil},
		{"help with more is a title", "help me", Command{Title: "help me"}, nil},
		{"title only", "Dark mode", Command{Title: "Dark mode"}, nil},
		{"pipe", "Dark mode | for night owls", Command{Title: "Dark mode", Description: "for night owls"}, nil},
		{"lines", "Dark mode\nfor night owls\nplease", Command{Title: "Dark mode", Description: "for night owls\nplease"}, nil},
		{"pipe then lines", "Dark mode | night\nowls", Command{Title: "Dark mode", Description: "night\nowls"}, nil},
		{"pipe on later line", "Dark mode\na | b", Command{Title: "Dark mode", Description: "a | b"}, nil},
		{"tight pipe", "a|b", Command{Title: "a|b"}, nil},
		{"trailing pipe", "Dark mode |", Command{Title: "Dark mode"}, nil},
		{"raw address", "jane@acme.com Dark mode", Command{CustomerEmail: "jane@acme.com", Title: "Dark mode"}, nil},
		{"mailto", "<mailto:jane@acme.com|jane@acme.com> Dark mode | x", Command{CustomerEmail: "jane@acme.com", Title: "Dark mode", Description: "x"}, nil},
		{"mailto other label", "<mailto:jane@acme.com|Jane> Dark mode", Command{CustomerEmail: "jane@acme.com", Title: "Dark mode"}, nil},
		{"mailto no label", "<mailto:jane@acme.com> Dark mode", Command{CustomerEmail: "jane@acme.com", Title: "Dark mode"}, nil},
		{"mailto no space", "<mailto:jane@acme.com|jane@acme.com>Dark", Command{CustomerEmail: "jane@acme.com", Title: "Dark"}, nil},
		{"address newline", "jane@acme.com\nDark mode\nbody", Command{CustomerEmail: "jane@acme.com", Title: "Dark mode", Description: "body"}, nil},
		{"address only", "jane@acme.com", Command{CustomerEmail: "jane@acme.com"}, ErrNoTitle},
		{"address then pipe", "jane@acme.com | body", Command{CustomerEmail: "jane@acme.com", Description: "body"}, ErrNoTitle},
		{"pipe first", "| body", Command{Description: "body"}, ErrNoTitle},
		{"not an address", "jane@ Dark", Command{Title: "jane@ Dark"}, nil},
		{"bad mailto", "<mailto:nope|nope> Dark", Command{Title: "nope Dark"}, nil},
		{"unclosed mailto", "<mailto:jane@acme.com Dark", Command{Title: "<mailto:jane@acme.com Dark"}, nil},
		{"crlf", "Dark mode\r\nplease", Command{Title: "Dark mode", Description: "please"}, nil},
		{"escaped title", "R&amp;D &lt;3", Command{Title: "R&D <3"}, nil},
		{"link with pipe label", "See <https://a.io|x | y> | body", Command{Title: "See x | y (https://a.io)", Description: "body"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseText(tt.text)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseText(%q) error = %v, want %v", tt.text, err, tt.err)
			}
			if got != tt.want {
				t.Errorf("ParseText(%q) = %+v, want %+v", tt.text, got, tt.want)
			}
		})
	}
}

// goldenCase is one line of testdata/texts.golden.
type goldenCase struct {
	Name          string `json:"name"`
	Text          string `json:"text"`
	Help          bool   `json:"help,omitempty"`
	CustomerEmail string `json:"customer_email,omitempty"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	Error         string `json:"error,omitempty"`
}

func TestParseTextGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/texts.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got []goldenCase
	for _, c := range splitCases(string(raw)) {
		cmd, err := ParseText(c.Text)
		c.Help, c.CustomerEmail, c.Title, c.Description = cmd.Help, cmd.CustomerEmail, cmd.Title, cmd.Description
		if err != nil {
			c.Error = err.Error()
		}
		got = append(got, c)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/texts.golden"
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("ParseText output differs from %s; rerun with -update and review the diff:\n%s", golden, out.String())
	}
}

// splitCases reads the "=== name" format of testdata/texts.txt.
func splitCases(s string) []goldenCase {
	var cases []goldenCase
	for _, block := range strings.Split(s, "\n=== ")[1:] {
		name, text, _ := strings.Cut(block, "\n")
		cases = append(cases, goldenCase{Name: name, Text: strings.TrimSuffix(text, "\n")})
	}
	return cases
}

func FuzzParseText(f *testing.F) {
	for _, seed := range []string{
		"", "help", "Dark mode | night", "jane@acme.com Title\nbody", "<mailto:a@b.co|a@b.co> x",
		"<@U1|jane> <#C1|gen> <!here> <https://a.io|a | b>", "&amp;lt; <", "| x", "<mailto:", "a <<b>> c",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseText(text)
		if c.Help && (err != nil || c.Title != "" || c.Description != "") {
			t.Fatalf("help with content: %+v %v", c, err)
		}
		if !c.Help && err == nil && c.Title == "" {
			t.Fatalf("no title and no error for %q", text)
		}
		if strings.Contains(c.Title, "\n") {
			t.Fatalf("title spans lines: %q", c.Title)
		}
		if c.Title != strings.TrimSpace(c.Title) || c.Description != strings.TrimSpace(c.Description) {
			t.Fatalf("untrimmed output: %+v", c)
		}
		if c.CustomerEmail != "" && !bareAddress(c.CustomerEmail) {
			t.Fatalf("customer %q is not a bare address", c.CustomerEmail)
		}
		if utf8.ValidString(text) && !utf8.ValidString(c.Title+c.Description) {
			t.Fatalf("valid input gave invalid UTF-8: %+v", c)
		}
		if again, err2 := ParseText(text); again != c || !errors.Is(err2, err) {
			t.Fatalf("not deterministic: %+v vs %+v", c, again)
		}
	})
}

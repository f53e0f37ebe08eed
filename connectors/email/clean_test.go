package email

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanBody(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Hello\n\nworld", "Hello\n\nworld"},
		{"signature", "Text\n-- \nJane\nAcme", "Text"},
		{"signature without space", "Text\n--\nJane", "Text"},
		{"dashes in text stay", "a -- b\n---\nc", "a -- b\n---\nc"},
		{"gmail attribution", "New text\n\nOn Mon, Nov 3, 2026 at 10:12 AM Jane <jane@acme.com> wrote:\n> old", "New text"},
		{"wrapped attribution", "New\n\nOn Mon, Nov 3, 2026 at 10:12 AM Jane <\njane@acme.com> wrote:\n\n> old", "New"},
		{"german attribution", "Neu\n\nAm 03.11.2026 um 10:12 schrieb Jane Doe <jane@acme.de>:\n> alt", "Neu"},
		{"french attribution", "Nouveau\n\nLe lun. 3 nov. 2026 à 10:12, Jean <jean@acme.fr> a écrit :\n> ancien", "Nouveau"},
		{"no date is not an attribution", "On the settings page I wrote:\nhello", "On the settings page I wrote:\nhello"},
		{"quoted lines", "> asked\nanswer\n>> older\nmore", "answer\nmore"},
		{"original message", "Reply\n-----Original Message-----\nFrom: x", "Reply"},
		{"outlook block", "Reply\n\nFrom: Support <s@example.com>\nSent: Monday\nTo: Jane\nSubject: Re: x\n\nold", "Reply"},
		{"from line alone stays", "From: the customer's point of view, this is slow.", "From: the customer's point of view, this is slow."},
		{"rule without block stays", "Totals\n__________\n42", "Totals\n__________\n42"},
		{"iphone", "Text\n\nSent from my iPhone", "Text"},
		{"german iphone", "Text\n\nVon meinem iPhone gesendet", "Text"},
		{"outlook mobile", "Text\n\nGet Outlook for Android<https://aka.ms/x>", "Text"},
		{"long line starting like a sign-off stays", "Sent from my phone while I was travelling through the mountains and noticing the app crashes", "Sent from my phone while I was travelling through the mountains and noticing the app crashes"},
		{"image placeholders", "See [image: shot.png] and [cid:image001.png@01D9]\n<IMG_1.jpeg>\nend", "See  and\nend"},
		{"blank lines collapse", "\n\n a\n\n\n\nb\n\n", " a\n\nb"},
		{"crlf", "a\r\nb\r\n", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanBody(tt.in); got != tt.want {
				t.Errorf("cleanBody(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}

func TestHTMLToText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"paragraphs", "<p>One</p><p>Two</p>", "One\n\nTwo"},
		{"divs and br", "<div>a</div><div><br></div><div>b<br>c</div>", "a\n\nb\nc"},
		{"entities and spaces", "<p>a&nbsp;&amp;   b\n c &lt;d&gt;</p>", "a & b c <d>"},
		{"script style head", "<head><title>T</title><style>p{}</style></head><script>x()</script><p>ok</p>", "ok"},
		{"unclosed head", "<head><title>T</title><body><p>ok</p>", "ok"},
		{"list", "<ul><li>one</li><li>two</li></ul>", "- one\n- two"},
		{"blockquote", "<p>new</p><blockquote><p>old</p><p>older</p></blockquote>", "new\n\n> old\n>\n> older\n>"},
		{"nested blockquote", "<blockquote>a<blockquote>b</blockquote></blockquote>", "> a\n> > b"},
		{"images dropped", `<p>see <img src="cid:x" alt="pic"> here</p>`, "see here"},
		{"links keep text", `<a href="https://x">the report</a>`, "the report"},
		{"signatures", `<p>hi</p><div class="gmail_signature">Jane<div>Acme</div></div><div id="Signature">S</div><p>end</p>`, "hi\n\nend"},
		{"hr", "<p>a</p><hr><p>b</p>", "a\n\n________________________________\n\nb"},
		{"table", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc"},
		{"pre", "<pre>x  y\n  z</pre>", "x  y\n  z"},
		{"outlook lines", `<p class="MsoNormal">a</p><p class="MsoNormal">b</p><p class="MsoNormal">&nbsp;</p><p class="MsoNormal">c</p>`, "a\nb\n\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.TrimSpace(htmlToText(tt.in)); got != tt.want {
				t.Errorf("htmlToText(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnflow(t *testing.T) {
	tests := []struct {
		name, in string
		delsp    bool
		want     string
	}{
		{"soft breaks", "a long \nline\nnext", false, "a long line\nnext"},
		{"delsp", "split wo\nrd", false, "split wo\nrd"},
		{"delsp soft", "split wo \nrd", true, "split word"},
		{"quotes", "> quoted \n> text\nplain", false, "> quoted text\nplain"},
		{"depth change ends paragraph", "> a \nb", false, "> a \nb"},
		{"space stuffing", " From here\n >not a quote", false, "From here\n>not a quote"},
		{"signature separator is hard", "-- \nJane", false, "-- \nJane"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unflow(tt.in, tt.delsp); got != tt.want {
				t.Errorf("unflow(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParsePerson(t *testing.T) {
	tests := []struct{ in, name, email string }{
		{"Jane Doe <Jane@Acme.com>", "Jane Doe", "jane@acme.com"},
		{"Tom Becker [mailto:tom@globex.io]", "Tom Becker", "tom@globex.io"},
		{`"Doe, Jane" <jane@acme.com>`, "Doe, Jane", "jane@acme.com"},
		{"Müller, Hans <hans@beispiel.de>", "Müller, Hans", "hans@beispiel.de"},
		{"jane@acme.com <jane@acme.com>", "", "jane@acme.com"},
		{"jane@acme.com", "", "jane@acme.com"},
		{"Dana Scully", "Dana Scully", ""},
		{"*Jane* <mailto:jane@acme.com>", "Jane", "jane@acme.com"},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := parsePerson(tt.in)
			if got.name != tt.name || got.email != tt.email {
				t.Errorf("parsePerson(%q) = %+v, want name %q email %q", tt.in, got, tt.name, tt.email)
			}
		})
	}
}

func TestFindForwards(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		ctx      bool
		froms    []string
		lastText string
	}{
		{"gmail", "note\n---------- Forwarded message ---------\nFrom: A <a@x.com>\nDate: today\nSubject: S\nTo: b@y.com\n\nbody", false, []string{"a@x.com"}, "\nbody"},
		{"outlook generic needs forward subject", "note\n-----Original Message-----\nFrom: A <a@x.com>\nSent: today\nSubject: S\n\nbody", false, nil, ""},
		{"outlook generic in forward", "note\n-----Original Message-----\nFrom: A <a@x.com>\nSent: today\nSubject: S\n\nbody", true, []string{"a@x.com"}, "\nbody"},
		{"marker without block", "---------- Forwarded message ---------\njust text", false, nil, ""},
		{"quoted apple forward", "note\n> Begin forwarded message:\n>\n> From: A <a@x.com>\n> Subject: S\n> Date: today\n>\n> body\n> more\nafter", false, []string{"a@x.com"}, "\nbody\nmore"},
		{"two levels", "-----Original Message-----\nFrom: B <b@y.com>\nSent: t\nSubject: Fwd: S\n\nfyi\n---------- Forwarded message ---------\nFrom: A <a@x.com>\nSubject: S\n\ninner", true, []string{"b@y.com", "a@x.com"}, "\ninner"},
		{"reply history inside a forward ends the chain", "---------- Forwarded message ---------\nFrom: A <a@x.com>\nSubject: Re: S\n\ntext\nFrom: B <b@y.com>\nSent: t\nTo: A\nSubject: S\n\nold", false, []string{"a@x.com"}, "\ntext\nFrom: B <b@y.com>\nSent: t\nTo: A\nSubject: S\n\nold"},
		{"localized french", "-----Message d'origine-----\nDe : J <j@x.fr>\nEnvoyé : lundi\nÀ : s@y.com\nObjet : P\n\ncorps", true, []string{"j@x.fr"}, "\ncorps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, hops, ok := findForwards(tt.body, tt.ctx)
			if ok != (len(tt.froms) > 0) || len(hops) != len(tt.froms) {
				t.Fatalf("found %d hops (ok=%v), want %d", len(hops), ok, len(tt.froms))
			}
			for i, h := range hops {
				if h.from.email != tt.froms[i] {
					t.Errorf("hop %d from %q, want %q", i, h.from.email, tt.froms[i])
				}
			}
			if ok && hops[len(hops)-1].text != tt.lastText {
				t.Errorf("innermost text %q, want %q", hops[len(hops)-1].text, tt.lastText)
			}
		})
	}
}

// FuzzClean feeds arbitrary bytes through the whole parser and the text cleaner: neither may panic or hang,
// and whatever comes out must be valid UTF-8 within the record limits.
func FuzzClean(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.eml")
	for _, file := range files {
		if raw, err := os.ReadFile(file); err == nil && len(raw) < 20_000 {
			f.Add(raw)
		}
	}
	f.Add([]byte("From: a@b.c\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: message/rfc822\r\n\r\n--x--"))
	f.Add([]byte("Subject: Fwd: x\n\n> > > ---------- Forwarded message ---------\n> > > From: a@b.c\n> > > Subject: y\n"))
	f.Add([]byte("Content-Type: text/html\n\n<blockquote><blockquote><div class=gmail_signature><head><p>"))
	p := NewParser([]string{"example.com"})
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := p.Parse(raw)
		if err == nil {
			if m.Title == "" || utf8.RuneCountInString(m.Title) > maxTitle {
				t.Errorf("title %q breaks the limits", m.Title)
			}
			if utf8.RuneCountInString(m.Description) > maxDescription {
				t.Errorf("description of %d runes", utf8.RuneCountInString(m.Description))
			}
			if !utf8.ValidString(m.Title) || !utf8.ValidString(m.Description) || !utf8.ValidString(m.CustomerName) {
				t.Error("output is not valid UTF-8")
			}
		}
		s := string(raw)
		_ = cleanBody(s)
		_ = htmlToText(s)
		_ = unflow(s, true)
	})
}

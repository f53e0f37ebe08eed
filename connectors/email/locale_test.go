package email

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLocalesCoverLanguages(t *testing.T) {
	var have []string
	for _, l := range locales {
		have = append(have, l.lang)
		if len(l.from) == 0 || len(l.date) == 0 || len(l.to) == 0 || len(l.subj) == 0 || len(l.forward) == 0 ||
			len(l.wrote) == 0 || len(l.fwdPrefix) == 0 {
			t.Errorf("%s: a list of the entry is empty", l.lang)
		}
	}
	for _, want := range strings.Fields("en de fr es it pt nl sv da no fi pl cs sk hu ro hr sl tr ru uk et lv lt el ja zh-Hans zh-Hant ko") {
		if !slices.Contains(have, want) {
			t.Errorf("no entry for %s", want)
		}
	}
}

func TestSeparatorOf(t *testing.T) {
	tests := []struct {
		in   string
		want separatorKind
	}{
		{"---------- Forwarded message ---------", sepForward},
		{"-------- Message transféré --------", sepForward},
		{"-------- Välitetty viesti / Fwd.Msg --------", sepForward},
		{"---------- メッセージを転送 ---------", sepForward},
		{"============ Forwarded message ============", sepForward},
		{"Begin forwarded message:", sepForward},
		{"Anfang der weitergeleiteten Nachricht :", sepForward},
		{"转发的邮件：", sepForward},
		{"-----Original Message-----", sepOriginal},
		{"-----Ursprüngliche Nachricht-----", sepOriginal},
		{"________________________________", sepOriginal},
		{"-------- Some client we never heard of --------", sepUnknown},
		{"----- End forwarded message -----", sepEnd},
		{"-------- Конец пересылаемого сообщения --------", sepEnd},
		{"--", notSeparator},
		{"-- Jane", notSeparator},
		{"----------", notSeparator},
		{"Steps to reproduce:", notSeparator},
		{"Forwarded message", notSeparator},
	}
	for _, tt := range tests {
		if got := separatorOf(tt.in); got != tt.want {
			t.Errorf("separatorOf(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestFieldOfLocalized(t *testing.T) {
	tests := []struct {
		in    string
		role  role
		value string
	}{
		{"Sujet : Export", roleSubject, "Export"},
		{"Enviado el: lunes", roleDate, "lunes"},
		{"De la: Ana <a@b.ro>", roleFrom, "Ana <a@b.ro>"},
		{"Feladó: Kovács <k@d.hu>", roleFrom, "Kovács <k@d.hu>"},
		{"Gönderen: Ayşe <a@b.tr>", roleFrom, "Ayşe <a@b.tr>"},
		{"件名：請求書", roleSubject, "請求書"},
		{"보낸 사람: 김 <k@k.kr>", roleFrom, "김 <k@k.kr>"},
		{"Kopie (CC): x@y.de", roleCC, "x@y.de"},
		{"*Von:* Jane", roleFrom, "Jane"},
		{"Note: this is text", 0, ""},
	}
	for _, tt := range tests {
		r, v := fieldOf(tt.in)
		if r != tt.role || v != tt.value {
			t.Errorf("fieldOf(%q) = %d %q, want %d %q", tt.in, r, v, tt.role, tt.value)
		}
	}
}

func TestUnfoldHeaderLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"----- Forwarded Message ----- From: John Doe <john@acme.com>To: Alice <a@example.com>Sent: Monday, 9 Nov 2026, 09:41:57 AM GMT+1Subject: Re: Sync: stops",
			[]string{"----- Forwarded Message -----", "From: John Doe <john@acme.com>", "To: Alice <a@example.com>",
				"Sent: Monday, 9 Nov 2026, 09:41:57 AM GMT+1", "Subject: Re: Sync: stops"}},
		{"> ----- Message transmis ----- De : Luc <l@a.fr>À : a@example.comEnvoyé : lundi 10:30Objet : Profil",
			[]string{"> ----- Message transmis -----", "> De : Luc <l@a.fr>", "> À : a@example.com", "> Envoyé : lundi 10:30", "> Objet : Profil"}},
		{"From: a@b.cc at 10:00: see the note: here", nil},
		{"We met at 10:00, 11:00 and 12:00: fine", nil},
	}
	for _, tt := range tests {
		if got := unfoldHeaderLine(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("unfoldHeaderLine(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
		}
	}
}

func TestIntroPerson(t *testing.T) {
	tests := []struct{ in, name, email string }{
		{`On 09/11/2026 10:12, "John Doe" <john.doe@acme.com> wrote:`, "John Doe", "john.doe@acme.com"},
		{`On Mon, Nov 9, 2026 at 10:12 AM Jane Roe <jane@acme.com> wrote:`, "Jane Roe", "jane@acme.com"},
		{`Le 09/11/2026 10:12, « Claire Martin » <c@p.fr> a écrit :`, "Claire Martin", "c@p.fr"},
		{`Dnia 09.11.2026, o godz. 10:12, „Tomasz Nowak” <t@o.pl> napisał:`, "Tomasz Nowak", "t@o.pl"},
		{`Am 09.11.2026 um 10:12 schrieb Anna Schmidt <anna@elbe.de>:`, "Anna Schmidt", "anna@elbe.de"},
		{`09.11.2026 10:12 používateľ Martin Horváth (<m@d.sk>) napísal:`, "Martin Horváth", "m@d.sk"},
		{`2026年11月9日(月) 10:12 田中 太郎 <taro@s.jp>:`, "田中 太郎", "taro@s.jp"},
		{`On 9 Nov 2026, at 10:12, jane@acme.com wrote:`, "", "jane@acme.com"},
	}
	for _, tt := range tests {
		if !isIntro(tt.in, true) {
			t.Errorf("isIntro(%q) = false", tt.in)
		}
		got := introPerson(tt.in)
		if got.name != tt.name || got.email != tt.email {
			t.Errorf("introPerson(%q) = %+v, want %q %q", tt.in, got, tt.name, tt.email)
		}
	}
	for _, s := range []string{"On the settings page I wrote:", "Please see what Jane <jane@acme.com> said:", "Call me at 555 1234:"} {
		if isIntro(s, false) {
			t.Errorf("isIntro(%q) = true", s)
		}
	}
}

func TestParsePersonArtefacts(t *testing.T) {
	tests := []struct{ in, name, email string }{
		{"John Doe<mailto:john.doe@acme.com> <john.doe@acme.com<mailto:john.doe@acme.com>> on behalf of ticketing@acme.com", "John Doe", "john.doe@acme.com"},
		{"Ticketing on behalf of Jane Roe <jane@acme.com>", "Jane Roe", "jane@acme.com"},
		{"Jane Roe (jane@acme.com) <jane@acme.com>", "Jane Roe", "jane@acme.com"},
		{`"'Jane Roe'" <jane@acme.com>`, "Jane Roe", "jane@acme.com"},
		{"Müller, Hans <hans@acme.de> im Auftrag von Support <support@acme.de>", "Müller, Hans", "hans@acme.de"},
		{"'Jane Roe' via Acme Support <jane@acme.com>", "Jane Roe", "jane@acme.com"},
		{"Luca Via <luca@acme.it>", "Luca Via", "luca@acme.it"},
	}
	for _, tt := range tests {
		got := parsePerson(tt.in)
		if got.name != tt.name || got.email != tt.email {
			t.Errorf("parsePerson(%q) = %+v, want %q %q", tt.in, got, tt.name, tt.email)
		}
	}
}

func TestHeaderBlockShapes(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		sep     separatorKind
		ok      bool
		subject string
		end     int
	}{
		{"unknown label between known ones", []string{"From: Jane <jane@acme.com>", "Priority: high", "Subject: x", "", "Hi"},
			sepForward, true, "x", 3},
		{"unknown label after the block ends it", []string{"From: Jane <jane@acme.com>", "Subject: x", "Note: call me", "Hi"},
			sepForward, true, "x", 2},
		{"date first, then the sender", []string{"Sent: Tuesday", "From: Jane <jane@acme.com>", "To: a@b.example", "Subject: x"},
			notSeparator, true, "x", 4},
		{"date first without a sender next", []string{"Sent: Tuesday", "Subject: x", "From: Jane <jane@acme.com>"},
			notSeparator, false, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blk, ok := parseHeaderBlock(tt.lines, 0, 0, tt.sep)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if ok && (blk.subject != tt.subject || blk.end != tt.end || blk.from.email != "jane@acme.com") {
				t.Errorf("got subject %q, end %d, from %+v; want %q, %d, jane@acme.com", blk.subject, blk.end, blk.from, tt.subject, tt.end)
			}
		})
	}
}

// FuzzHeaderBlock feeds arbitrary text to the recognisers of forwarded header blocks: none may panic, a
// folded header line must come apart into pieces that hold exactly its text, and every sender found must be
// an address.
func FuzzHeaderBlock(f *testing.F) {
	for _, s := range []string{
		"----- Forwarded Message ----- From: J <j@a.com>To: b@c.dSent: Mon 10:00Subject: x\n body",
		"-------- Message transféré --------\nSujet\u00a0: x\nDe\u00a0: J <j@a.fr>\n\ntext",
		"\ufeffOn 1/2/2026 10:12, \"J\" <j@a.com> wrote:\n\n    text",
		"Begin forwarded message:\n\n> From: J <j@a.com>\n> Subject: x\n>\n> text",
		"________________________________\nVon: J <j@a.de>\nGesendet: x\nAn: y\nBetreff: z\n\nt",
		"送信元：J <j@a.jp>\n日付：x\n件名：y",
		"---------- Forwarded message ---------\nFrom: J <j@a.com>\nDate: x\nSubject: a long\nsubject\nTo: <b@c.d>\n\nt",
		"-----Mensaje original-----\nAsunto: a\n  b\nDe: J <j@a.es>\nEnviado el: x\nPara: y\n\nt",
	} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, body string, ctx bool) {
		_, hops, _ := findForwards(body, ctx)
		for _, h := range hops {
			if h.from.email != "" && !strings.Contains(h.from.email, "@") {
				t.Errorf("sender %q is not an address", h.from.email)
			}
			if utf8.ValidString(body) && (!utf8.ValidString(h.text) || !utf8.ValidString(h.from.name)) {
				t.Error("valid text came out invalid")
			}
		}
		for _, line := range strings.Split(body, "\n") {
			pieces := unfoldHeaderLine(line)
			if pieces == nil {
				continue
			}
			d, text := quoteLevel(line)
			var joined strings.Builder
			for _, p := range pieces {
				pd, pt := quoteLevel(p)
				if pd != d {
					t.Fatalf("piece %q of %q lost its quote depth", p, line)
				}
				joined.WriteString(pt)
			}
			if strip(joined.String()) != strip(text) {
				t.Fatalf("pieces %q do not hold the text of %q", pieces, line)
			}
		}
		_ = separatorOf(strings.TrimSpace(body))
		_ = introPerson(body)
	})
}

func strip(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func TestSignOffs(t *testing.T) {
	for _, s := range []string{"Sent from my iPhone", "Von meinem iPad gesendet", "Отправлено с iPhone", "Odoslané z iPhonu",
		"Az iPhone-omról küldve", "Nosūtīts no mana iPhone", "iPhoneから送信", "发自我的iPhone", "나의 iPhone에서 보냄",
		"iPhone'umdan gönderildi", "Lähetetty iPhonesta"} {
		if !isSignOff(s) {
			t.Errorf("isSignOff(%q) = false", s)
		}
	}
	for _, s := range []string{"Sent the report yesterday", "Fatura dün gönderildi", "Lähetetty paketti saapui", "Az új verzió"} {
		if isSignOff(s) {
			t.Errorf("isSignOff(%q) = true", s)
		}
	}
}

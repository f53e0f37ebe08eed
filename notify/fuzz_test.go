package notify

import (
	"mime"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// FuzzTexts feeds outside titles to both message forms: a title can neither add a mail header nor become
// Slack markup (a mention, a link), and the mail always reads back as one well-formed message.
func FuzzTexts(f *testing.F) {
	for _, s := range []string{"Dark mode", "x\r\nBcc: evil@example.com", "<!channel> <https://evil.example|click>",
		"=?utf-8?q?=0D=0ABcc:_x?=", strings.Repeat("é", 600), "\u2028line\x00end", ""} {
		f.Add(s)
	}
	n := New(Settings{}, Options{Now: func() time.Time { return time.Unix(0, 0) }})
	f.Fuzz(func(t *testing.T, title string) {
		no := core.Notice{Record: ideaID, RecordType: core.RecordIdea, Title: title, Status: "Done", To: "a@example.com"}
		if s := slackText(no); strings.ContainsAny(s, "<>") || strings.Contains(s, "\n") {
			t.Fatalf("Slack text carries markup or a second line from the title: %q", s)
		}
		raw, err := n.message("feedback@example.com", "abc", no)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatalf("message does not parse: %v\n%q", err, raw)
		}
		if len(msg.Header) != 9 || len(msg.Header["Subject"]) != 1 || len(msg.Header["Bcc"]) != 0 {
			t.Fatalf("headers %v", msg.Header)
		}
		subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if err != nil || strings.ContainsAny(subject, "\r\n") {
			t.Fatalf("subject %q (%v)", subject, err)
		}
	})
}

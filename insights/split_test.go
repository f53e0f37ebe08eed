package insights

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func quotes(text string) []string {
	var out []string
	for _, sp := range splitSentences(text) {
		out = append(out, text[sp.start:sp.end])
	}
	return out
}

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"blank lines only", "\n \n\t\n", nil},
		{"two sentences", "Export is broken. Please fix it!", []string{"Export is broken.", "Please fix it!"}},
		{"question and exclamation", "Why?! It worked yesterday.", []string{"Why?!", "It worked yesterday."}},
		{"no final punctuation", "love it. would buy again", []string{"love it.", "would buy again"}},
		{"decimal and url", "Version 2.5 on example.com/app is slow. Really.",
			[]string{"Version 2.5 on example.com/app is slow.", "Really."}},
		{"abbreviations", "Add formats, e.g. PDF and CSV. Also etc. stuff works.",
			[]string{"Add formats, e.g. PDF and CSV.", "Also etc. stuff works."}},
		{"initials", "Ask J. Smith about it. He knows.", []string{"Ask J. Smith about it.", "He knows."}},
		{"sentence ending in I", "So do I. The rest is fine.", []string{"So do I.", "The rest is fine."}},
		{"closing quote stays", `He said "it crashed." Then it froze.`, []string{`He said "it crashed."`, "Then it froze."}},
		{"lines are breaks", "Hi team,\nthe export fails\n\nThanks", []string{"Hi team,", "the export fails", "Thanks"}},
		{"tab ends a title", "Slow sync\tIt takes a minute. Really", []string{"Slow sync", "It takes a minute.", "Really"}},
		{"crlf", "First line\r\nSecond line\r\n", []string{"First line", "Second line"}},
		{"bullets", "- dark mode\n* bulk edit\n• SSO\n1. faster search\n2) audit log",
			[]string{"dark mode", "bulk edit", "SSO", "faster search", "audit log"}},
		{"hyphen word is not a bullet", "-5 degrees breaks it", []string{"-5 degrees breaks it"}},
		{"quoted email lines skipped", "Still broken.\n> On Monday you wrote:\n> fixed", []string{"Still broken."}},
		{"punctuation only dropped", "... -- !!", nil},
		{"ellipsis", "It just… stops. Weird", []string{"It just…", "stops.", "Weird"}},
		{"emoji sentence kept", "🎉🎉", []string{"🎉🎉"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := quotes(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("split(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestSplitLongSentence(t *testing.T) {
	long := strings.Repeat("word ", 400) + "end"
	got := quotes(long)
	if len(got) < 3 {
		t.Fatalf("got %d pieces, want the run-on text cut into several", len(got))
	}
	for _, q := range got {
		if len(q) > maxSentence {
			t.Errorf("piece of %d bytes exceeds %d", len(q), maxSentence)
		}
		if strings.HasPrefix(q, " ") || strings.HasSuffix(q, " ") {
			t.Errorf("piece %q not trimmed", q)
		}
	}
	noSpace := strings.Repeat("é", 1000)
	for _, q := range quotes(noSpace) {
		if !utf8.ValidString(q) || len(q) > maxSentence {
			t.Errorf("cut inside a rune or too long: %d bytes", len(q))
		}
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Doesn't work", []string{"does", "not", "work"}},
		{"I’d love it, can't wait", []string{"i", "would", "love", "it", ",", "can", "not", "wait"}},
		{"dont cant wont", []string{"do", "not", "can", "not", "will", "not"}},
		{"the customer's plan; users' data", []string{"the", "customer", "plan", ",", "users", "data"}},
		{"It's great. Let's go!", []string{"it", "is", "great", "let", "us", "go"}},
		{"two-factor (2FA) 🎉", []string{"two", "factor", ",", "2fa", ",", "🎉"}},
		{"ÉCRAN Noir", []string{"écran", "noir"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := tokenize(tc.in, nil); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tokenize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSingular(t *testing.T) {
	for in, want := range map[string]string{
		"reports": "report", "entries": "entry", "boxes": "box", "matches": "match", "addresses": "address",
		"status": "status", "ios": "ios", "analytics": "analytics", "class": "class", "bus": "bus",
		"api": "api", "users": "user", "sms": "sms", "crashes": "crash", "ids": "ids",
	} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

package email

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// introAt finds a reply introduction starting at lines[i] (quote depth d): clients wrap it over up to three
// lines, the last ending in a colon. It returns the joined text and the index of its last line, or -1.
func introAt(lines []string, i, d int) (string, int) {
	first := ""
	for k := i; k < len(lines) && k < i+3; k++ {
		ld, text := quoteLevel(lines[k])
		text = strings.TrimSpace(text)
		if ld != d || text == "" || len(text) > maxAttribution {
			return "", -1
		}
		if k == i {
			first = text
			if !mayStartIntro(first) {
				return "", -1
			}
		} else if !strings.ContainsAny(first, "0123456789@") {
			return "", -1 // a wrapped introduction has its date or address on its first line
		}
		if strings.HasSuffix(text, ":") || strings.HasSuffix(text, "：") {
			if k == i {
				return text, k
			}
			parts := make([]string, 0, 3)
			for m := i; m <= k; m++ {
				_, t := quoteLevel(lines[m])
				parts = append(parts, strings.TrimSpace(t))
			}
			return strings.Join(parts, " "), k
		}
	}
	return "", -1
}

// mayStartIntro rules out, cheaply, a line that cannot begin a reply introduction: one ending a sentence.
func mayStartIntro(t string) bool {
	switch t[len(t)-1] {
	case '.', '!', '?':
		return false
	}
	return true
}

// isIntro reports whether joined is a reply introduction: it ends in a colon, holds a date (a digit) and
// either a "wrote" word of the table or an address right before the colon (Gmail in Japanese), and it
// begins with a word the table lists, with the date, or names an address. needAddr asks for the address.
func isIntro(joined string, needAddr bool) bool {
	if len(joined) >= maxAttribution || !strings.ContainsAny(joined, "0123456789") {
		return false
	}
	hasAddr := strings.Contains(joined, "@")
	if needAddr && !hasAddr {
		return false
	}
	body := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(joined, ":"), "："), " ")
	folded := strings.ToLower(body)
	verb := false
	for _, w := range introWords {
		if strings.Contains(folded, w) {
			verb = true
			break
		}
	}
	if !verb && !(hasAddr && (strings.HasSuffix(body, ">") || strings.HasSuffix(body, "]") || strings.HasSuffix(body, ")"))) {
		return false
	}
	if hasAddr {
		return true
	}
	first, _ := utf8.DecodeRuneInString(joined)
	if unicode.IsDigit(first) {
		return true
	}
	w := strings.ToLower(joined[:strings.IndexFunc(joined+" ", unicode.IsSpace)])
	if introStarts[strings.TrimRight(w, ",")] {
		return true
	}
	two := strings.Fields(folded)
	return len(two) > 1 && introStarts[two[0]+" "+two[1]]
}

// Words that stand between the date and the sender's name in the introductions of the table's languages.
var introNameStops = map[string]bool{
	"am": true, "pm": true, "uhr": true, "at": true, "um": true, "à": true, "a": true, "h": true, "kl.": true, "kl": true,
	"klo": true, "o": true, "ob": true, "u": true, "v": true, "la": true, "às": true, "alle": true, "ore": true, "om": true,
	"heeft": true, "schreef": true, "schrieb": true, "skrev": true, "používateľ": true, "пользователь": true,
	"időpontban": true, "odesílatel": true, "oseba": true, "je": true, "lietotājs": true, "ο/η": true, "kell": true,
	"godz.": true, "в": true, "о": true, "오전": true, "오후": true, "wrote": true, "de": true, "el": true, "le": true,
	"on": true, "op": true, "den": true, "d.": true, "em": true, "il": true, "giorno": true, "dne": true, "dnia": true,
	"w": true, "dniu": true, "în": true, "στις": true, "las": true, "kello": true,
}

// introPerson reads the sender that a reply introduction names: the address (in angle brackets, square
// brackets or parentheses, or bare) and the name before it, when it is quoted or stands between the date and
// the address. The name is left out when it cannot be told apart.
func introPerson(joined string) person {
	loc := addrRe.FindStringIndex(joined)
	if loc == nil {
		return person{}
	}
	email := strings.TrimRight(joined[loc[0]:loc[1]], ".")
	before := strings.TrimRight(joined[:loc[0]], " <[(")
	before = strings.TrimRight(before, " <[(")
	name := ""
	if n := len(before); n > 0 {
		last, size := utf8.DecodeLastRuneInString(before)
		if open := map[rune]rune{'"': '"', '»': '«', '”': '„', '\'': '\''}[last]; open != 0 {
			if k := strings.LastIndex(before[:n-size], string(open)); k >= 0 {
				name = before[k+len(string(open)) : n-size]
			}
			if last == '”' && name == "" {
				if k := strings.LastIndex(before[:n-size], "“"); k >= 0 {
					name = before[k+len("“") : n-size]
				}
			}
		} else {
			words := strings.Fields(before)
			k := len(words)
			for k > 0 && len(words)-k < 4 {
				w := words[k-1]
				if strings.ContainsAny(w, "0123456789,@") || introNameStops[strings.ToLower(w)] || isIntroWord(w) {
					break
				}
				k--
			}
			name = strings.Join(words[k:], " ")
		}
	}
	if strings.Contains(name, "@") {
		name = ""
	}
	return newPerson(name, email)
}

func isIntroWord(w string) bool {
	w = strings.ToLower(w)
	for _, v := range introWords {
		if v == w {
			return true
		}
	}
	return false
}

package slack

import (
	"errors"
	"net/mail"
	"strings"
)

// Command is what the text of a /feedback or /idea command asks for.
type Command struct {
	Help          bool   // empty text or "help": answer with the usage message
	CustomerEmail string // bare address, as typed
	Title         string
	Description   string
}

// ErrNoTitle is text that names a customer (or starts with the separator) but gives no title.
var ErrNoTitle = errors.New("slack: a title is required")

// ParseText reads a slash command's text (as Slack sends it, escaped): an optional leading customer address,
// raw or as <mailto:…|…>, then the title. " | " on the first line splits title from description; without
// it the first line is the title and the remaining lines the description. Slack's escapes become plain text.
func ParseText(text string) (Command, error) {
	rest := strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if rest == "" || strings.EqualFold(rest, "help") {
		return Command{Help: true}, nil
	}
	var c Command
	if addr, after, ok := leadingAddress(rest); ok {
		c.CustomerEmail = addr
		rest = strings.TrimSpace(after)
	}
	first, more, hasMore := strings.Cut(rest, "\n")
	title, desc := first, more
	if i := separatorIndex(first); i >= 0 {
		title, desc = first[:i], first[i+1:]
		if hasMore {
			desc += "\n" + more
		}
	}
	c.Title = strings.TrimSpace(Unescape(title))
	c.Description = strings.TrimSpace(Unescape(desc))
	if c.Title == "" {
		return c, ErrNoTitle
	}
	return c, nil
}

// separatorIndex finds the first "|" standing alone between spaces (or at either end of the line) outside
// Slack's <…> forms, whose labels may hold one; "a|b" stays part of the title.
func separatorIndex(s string) int {
	inLink := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			inLink = strings.IndexByte(s[i:], '>') > 0
		case '>':
			inLink = false
		case '|':
			if !inLink && (i == 0 || s[i-1] == ' ') && (i == len(s)-1 || s[i+1] == ' ') {
				return i
			}
		}
	}
	return -1
}

// leadingAddress takes a customer address off the front of s: either Slack's <mailto:a|label> form or a
// raw bare address followed by whitespace or the end.
func leadingAddress(s string) (addr, rest string, ok bool) {
	if strings.HasPrefix(s, "<mailto:") {
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return "", s, false
		}
		target, _, _ := strings.Cut(s[len("<mailto:"):end], "|")
		addr = decodeEntities(target)
		return addr, s[end+1:], bareAddress(addr)
	}
	end := strings.IndexAny(s, " \t\n")
	if end < 0 {
		end = len(s)
	}
	addr = decodeEntities(s[:end])
	return addr, s[end:], bareAddress(addr)
}

// bareAddress accepts one plain address such as jane@acme.com; display names, lists and
// angle brackets are not a customer address but part of the title.
func bareAddress(s string) bool {
	if s == "" || strings.ContainsAny(s, "<>\"(), ") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

package notify

import (
	"fmt"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// The texts are short: which idea moved where, and where to see it.

// maxTitle bounds the title quoted in a message; the record keeps the whole one.
const maxTitle = 150

func noun(t core.RecordType) string {
	if t == core.RecordFeature {
		return "feature"
	}
	return "idea"
}

// oneLine makes a title safe for one line of text or a mail header: no control characters, bounded.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
	return core.Truncate(strings.TrimSpace(s), maxTitle, "…")
}

// slackEscape keeps outside text from becoming Slack markup: a title cannot mention @channel or make a link.
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// sentence is the message's one sentence, with quote applied to the title.
func sentence(n core.Notice, quote func(string) string) string {
	return fmt.Sprintf("Update on the %s you brought to us: “%s” is now %s.", noun(n.RecordType), quote(oneLine(n.Title)), n.Status)
}

func slackText(n core.Notice) string {
	s := sentence(n, slackEscape.Replace)
	if n.Link != "" {
		s += "\n" + n.Link
	}
	return s
}

func mailSubject(n core.Notice) string {
	return fmt.Sprintf("“%s” is now %s", oneLine(n.Title), n.Status)
}

func mailBody(n core.Notice) string {
	s := "Hello,\n\n" + sentence(n, func(s string) string { return s }) + "\n"
	if n.Link != "" {
		s += "\nSee it here: " + n.Link + "\n"
	}
	return s + "\nThank you for passing it on.\n"
}

package slack

import "strings"

// entities are the only three escapes Slack applies to message text; decoding them in one pass keeps a
// typed "&amp;lt;" as the literal "&lt;".
var entities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")

func decodeEntities(s string) string { return entities.Replace(s) }

// Unescape turns Slack's escaped message text into plain text: &amp; &lt; &gt; become & < >, and the
// control forms become what a reader sees: <@U1|jane> "@jane", <#C1|general> "#general", <!here> "@here",
// <mailto:a@b.co|a@b.co> "a@b.co", <https://x.io|docs> "docs (https://x.io)". A link or mail address keeps
// its target beside a differing label so that nothing the user wrote is lost.
func Unescape(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		start := strings.IndexByte(s, '<')
		if start < 0 {
			break
		}
		end := strings.IndexByte(s[start:], '>')
		if end < 0 {
			break
		}
		end += start
		inner := s[start+1 : end]
		b.WriteString(decodeEntities(s[:start]))
		if inner == "" || strings.IndexByte(inner, '<') >= 0 {
			// Not one of Slack's forms (it never nests them): keep the bracket as written.
			b.WriteByte('<')
			s = s[start+1:]
			continue
		}
		b.WriteString(plainForm(inner))
		s = s[end+1:]
	}
	b.WriteString(decodeEntities(s))
	return b.String()
}

// plainForm renders the inside of one <…> form.
func plainForm(inner string) string {
	target, label, _ := strings.Cut(inner, "|")
	target, label = decodeEntities(target), decodeEntities(label)
	switch {
	case strings.HasPrefix(target, "@"): // user
		if label != "" {
			return "@" + strings.TrimPrefix(label, "@")
		}
		return target
	case strings.HasPrefix(target, "#"): // channel
		if label != "" {
			return "#" + strings.TrimPrefix(label, "#")
		}
		return target
	case strings.HasPrefix(target, "!"): // @here, @channel, user groups, dates (label is the fallback)
		if label != "" {
			return label
		}
		name, _, _ := strings.Cut(target[1:], "^")
		return "@" + name
	case strings.HasPrefix(target, "mailto:"):
		target = strings.TrimPrefix(target, "mailto:")
	}
	switch label {
	case "", target, strings.TrimPrefix(target, "http://"), strings.TrimPrefix(target, "https://"):
		if label == "" {
			return target
		}
		return label
	}
	return label + " (" + target + ")"
}

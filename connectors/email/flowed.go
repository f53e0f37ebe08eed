package email

import "strings"

// unflow joins the soft line breaks of a format=flowed text part (RFC 3676), which Apple Mail and Thunderbird
// send; without it a forwarded header field or a sentence may be split over lines. Quote depth is written back
// as "> " per level.
func unflow(s string, delsp bool) string {
	lines := strings.Split(normalizeNewlines(s), "\n")
	out := make([]string, 0, len(lines))
	var cur strings.Builder
	depth, open := 0, false
	flush := func() {
		if open {
			out = append(out, strings.Repeat("> ", depth)+cur.String())
		}
		cur.Reset()
		open = false
	}
	for _, l := range lines {
		d := len(l) - len(strings.TrimLeft(l, ">"))
		content := strings.TrimPrefix(l[d:], " ") // space-stuffing
		if open && d != depth {
			flush()
		}
		soft := strings.HasSuffix(content, " ") && content != "-- "
		if soft && delsp {
			content = content[:len(content)-1]
		}
		cur.WriteString(content)
		depth, open = d, true
		if !soft {
			flush()
		}
	}
	flush()
	return strings.Join(out, "\n")
}

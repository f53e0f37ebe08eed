package slack

import "testing"

func TestUnescape(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "nothing to do", "nothing to do"},
		{"amp", "R&amp;D", "R&D"},
		{"lt gt", "1 &lt; 2 &gt; 0", "1 < 2 > 0"},
		{"one pass", "&amp;lt;b&amp;gt;", "&lt;b&gt;"},
		{"other entities stay", "&quot;&#39;&nbsp;", "&quot;&#39;&nbsp;"},
		{"user with name", "<@U024BE7LH|jane>", "@jane"},
		{"user without name", "<@U024BE7LH>", "@U024BE7LH"},
		{"user label with at", "<@U1|@jane>", "@jane"},
		{"channel with name", "<#C024BE7LR|general>", "#general"},
		{"channel without name", "<#C024BE7LR>", "#C024BE7LR"},
		{"channel empty name", "<#C024BE7LR|>", "#C024BE7LR"},
		{"here", "<!here>", "@here"},
		{"channel mention", "<!channel>", "@channel"},
		{"everyone", "<!everyone>", "@everyone"},
		{"old here form", "<!here|@here>", "@here"},
		{"user group", "<!subteam^S012ABC|@design>", "@design"},
		{"user group no label", "<!subteam^S012ABC>", "@subteam"},
		{"date fallback", "<!date^1392734382^{date_pretty}|Feb 18, 2014>", "Feb 18, 2014"},
		{"mailto same label", "<mailto:jane@acme.com|jane@acme.com>", "jane@acme.com"},
		{"mailto no label", "<mailto:jane@acme.com>", "jane@acme.com"},
		{"mailto other label", "<mailto:jane@acme.com|Jane>", "Jane (jane@acme.com)"},
		{"url no label", "<https://acme.com/a?b=1&amp;c=2>", "https://acme.com/a?b=1&c=2"},
		{"url label", "<https://acme.com/export|the export page>", "the export page (https://acme.com/export)"},
		{"url same label", "<https://acme.com|https://acme.com>", "https://acme.com"},
		{"auto linked domain", "<http://acme.com|acme.com>", "acme.com"},
		{"auto linked https domain", "<https://acme.com|acme.com>", "acme.com"},
		{"escaped label", "<https://a.io|Q&amp;A>", "Q&A (https://a.io)"},
		{"several", "<@U1|a> in <#C1|b>: <https://x.io|x.io> &amp; more", "@a in #b: x.io & more"},
		{"unclosed", "a <b c", "a <b c"},
		{"empty brackets", "a <> b", "a <> b"},
		{"nested opener", "a <<@U1|b>> c", "a <@b> c"},
		{"lone closer", "a > b", "a > b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unescape(tt.in); got != tt.want {
				t.Errorf("Unescape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

package realdata

import (
	"fmt"
	"strings"
)

// words is the vocabulary, the most frequent first: the words of feedback about software, then a long
// tail of rare words (product names, identifiers, misspellings) that few rows share.
var words = func() []string {
	w := strings.Fields(`the to and a I is it of in when not for we on this that with can be our app
	please would after page export report dashboard login slow error search import csv email invoice billing
	customer team user users admin settings password reset crash crashes update new old button list view filter
	sort date time timeout mobile android iphone ipad tablet browser chrome firefox safari edge windows mac linux
	sync calendar integration slack teams zapier salesforce hubspot zendesk intercom jira linear github gitlab
	api webhook token key limit rate permissions role sso saml okta onboarding tutorial docs help support ticket
	response pricing plan upgrade downgrade refund trial seat seats license account workspace project board
	kanban roadmap release sprint deadline notification notifications alert alerts dark mode theme font size
	contrast accessibility screen reader keyboard shortcut shortcuts chart graph column table row rows upload
	download pdf print share link links comment comments mention archive delete restore duplicate merge missing
	broken wrong confusing unclear great love hate annoying frustrating fast faster slower loading spinner stuck
	blank white empty page pages tab tabs modal dialog popup menu sidebar header footer logo image images video
	attachment attachments file files folder folders translation german french spanish italian japanese
	straße über café naïve résumé señor Ωmega ĳssel 日本 データ feature request bug issue problem question idea
	suggestion workflow automation rule rules trigger report reports weekly daily monthly quarterly annual
	invoice invoices tax vat currency euro dollar payment card declined checkout cart order orders shipping`)
	for i := range 3000 {
		w = append(w, fmt.Sprintf("%c%c%c%s%d", 'b'+rune(i%21), 'a'+rune(i/21%5*4), 'k'+rune(i%9), []string{"er", "ix", "on", "ly"}[i%4], i))
	}
	return w
}()

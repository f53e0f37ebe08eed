package postgres_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"github.com/feedbridge/feedbridge/core"
)

// feedbackGen writes plausible feedback text deterministically: sentences from a vocabulary whose words
// have Zipf-like frequencies, so searches meet common, middling and rare terms as in real data.
type feedbackGen struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

var vocabulary = strings.Fields(`the app is slow when I try to login export csv report dashboard invoice billing page
	crashes after update please add dark mode search does not find anything notifications email sync calendar
	integration slack mobile android iphone tablet settings password reset two factor permissions admin team
	workspace onboarding tutorial pricing plan upgrade downgrade refund support ticket response time api webhook
	rate limit timeout error message confusing button label typo translation german french spanish straße über
	café naïve résumé keyboard shortcut accessibility screen reader contrast font size chart graph filter sort
	column table import attachment upload download pdf print share link comment mention archive delete restore
	kubernetes terraform salesforce hubspot zendesk intercom jira linear github gitlab bitbucket sso saml okta`)

func newFeedbackGen(seed uint64) *feedbackGen {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &feedbackGen{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocabulary)-1))}
}

func (g *feedbackGen) sentence(words int) string {
	ws := make([]string, words)
	for i := range ws {
		ws[i] = vocabulary[g.zipf.Uint64()]
	}
	r := []rune(strings.Join(ws, " "))
	r[0] = unicode.ToUpper(r[0])
	return string(r) + "."
}

// record returns a feedback of about 250 bytes created at a random time within the two years before end,
// as an import of old data has them.
func (g *feedbackGen) record(end time.Time) core.NewRecord {
	return g.recordAt(end.Add(-time.Duration(g.rng.Int64N(int64(2 * 365 * 24 * time.Hour)))))
}

// recordAt returns a feedback of about 250 bytes created at at.
func (g *feedbackGen) recordAt(at time.Time) core.NewRecord {
	at = at.UTC().Truncate(time.Millisecond)
	title := g.sentence(4 + g.rng.IntN(5))
	desc := g.sentence(10+g.rng.IntN(10)) + " " + g.sentence(8+g.rng.IntN(8))
	n := g.rng.IntN(200)
	return core.NewRecord{
		ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: title, DescriptionHTML: desc, Description: desc,
		SearchText: core.Fold(title + "\n" + desc), Status: core.StatusTriage, Source: "CSV",
		DedupKey: fmt.Sprintf("csv:bench:%d", g.rng.Uint64()), CreatedAt: at, UpdatedAt: at,
		Contact: &core.ContactRef{Email: fmt.Sprintf("user%d@company%d.com", n, n%50), EmailKey: fmt.Sprintf("user%d@company%d.com", n, n%50),
			Domain: fmt.Sprintf("company%d.com", n%50), CompanyName: fmt.Sprintf("Company%d", n%50)},
	}
}

// Package listbench holds what both stores' listing benchmarks share: the data set, drawn from
// internal/realdata (feedback-like text, most rows a new customer, company domains with a Zipf-like spread
// beside free-mail addresses, tags on a share of rows), and the list of filter combinations GET /records
// offers, so that the two stores are held to the same listings over the same shape of data.
package listbench

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/realdata"
)

// Corpus makes feedback-like records with realdata's text, for the benchmarks of searching and of the bulk
// path; their customers are drawn evenly, not with the listing data set's shape.
type Corpus struct {
	rng  *rand.Rand
	text *realdata.Text
}

// NewCorpus returns a corpus with a fixed seed: every run draws the same records.
func NewCorpus() *Corpus {
	return &Corpus{rng: rand.New(rand.NewPCG(1, 2)), text: realdata.NewText(3)}
}

// Record returns a record created at at: a quarter of them Ideas, with a customer among 5,000 addresses
// whose contact reference the caller completes.
func (c *Corpus) Record(ws core.ID, at time.Time) core.NewRecord {
	r := record(c.rng, c.text.Title(), c.text.Description(), at)
	r.Contact = &core.ContactRef{Email: fmt.Sprintf("u%d@c%d.com", c.rng.IntN(5000), c.rng.IntN(500))}
	return r
}

func record(rng *rand.Rand, title, desc string, at time.Time) core.NewRecord {
	typ := core.RecordFeedback
	if rng.IntN(4) == 0 {
		typ = core.RecordIdea
	}
	return core.NewRecord{
		ID: core.NewIDAt(at), Type: typ, Title: title, Description: desc, DescriptionHTML: desc,
		SearchText: core.Fold(title + "\n" + desc), Status: core.StatusTriage, Source: "CSV", CreatedAt: at, UpdatedAt: at,
	}
}

// Data is the shape of the listing data set: a quarter of the rows by a returning customer, 400 company
// domains, a fifth of the customers on free mail, a third of the rows tagged from 40 labels.
var Data = realdata.Shape{NewCustomer: 0.75, Domains: 400, FreeMail: 5, Tagged: 0.35, Tags: 40, Seed: 7}

// TagLabels and ProductLabels are the lookups of the data set; the first tag is the common one, and they
// sort in the order of how common they are.
var (
	TagLabels     = tagLabels()
	ProductLabels = []string{"web", "ios", "android", "api", "desktop", "cli"}
)

func tagLabels() []string {
	out := make([]string, Data.Tags)
	for i := range out {
		out[i] = fmt.Sprintf("tag-%02d", i)
	}
	return out
}

// Records draws the n records of the listing data set in batches of 1,000, oldest first, one a minute from
// base on, and hands each batch to put. tags and products are the ids of TagLabels and ProductLabels.
func Records(ws core.ID, n int, base time.Time, tags, products []core.ID, put func([]core.NewRecord) error) error {
	g := realdata.New(Data)
	rank := map[string]int{} // realdata's labels, the most common first, to TagLabels
	for i, l := range Data.TagLabels() {
		rank[l] = i
	}
	companies := core.NewCompanyResolver(nil, nil) // as the service resolves them: punycode, free mail none
	rng := rand.New(rand.NewPCG(7, 11))
	sources := []string{"CSV", "API", "Email", "Slack", "Intercom"}
	statuses := []string{core.StatusTriage, core.StatusTriage, core.StatusTriage, core.StatusProcessed}
	for i := 0; i < n; i += 1000 {
		batch := make([]core.NewRecord, 0, 1000)
		for j := i; j < min(i+1000, n); j++ {
			row := g.Next()
			r := record(rng, row.Title, row.Description, base.Add(time.Duration(j)*time.Minute))
			r.Source = sources[rng.IntN(len(sources))]
			r.Status = statuses[rng.IntN(len(statuses))]
			r.Contact = &core.ContactRef{Email: row.Email, EmailKey: strings.ToLower(row.Email)}
			r.Contact.Domain, r.Contact.CompanyName, _ = companies.Resolve(row.Email)
			for _, l := range row.Tags {
				r.TagIDs = append(r.TagIDs, tags[rank[l]])
			}
			if rng.IntN(2) == 0 {
				r.ProductID = products[rng.IntN(len(products))]
			}
			batch = append(batch, r)
		}
		if err := put(batch); err != nil {
			return err
		}
	}
	return nil
}

// Window is the date window of the listings: about a tenth of the n records from base on.
func Window(base time.Time, n int) (from, to time.Time) {
	return base.Add(time.Duration(n/2) * time.Minute), base.Add(time.Duration(n/2+n/10) * time.Minute)
}

// Shape names the values of a filled data set that the listings filter on.
type Shape struct {
	Tags, Products []core.ID
	CommonTag      core.ID // on about a tenth of the rows
	RareTag        core.ID
	BigCompany     core.ID // the most common domain's company
	SmallCompany   core.ID
	Email          string // a customer with a few records
	Idea           core.ID
	From, To       time.Time // a window of about a tenth of the rows
}

// Case is one listing: a name for its figure and its query.
type Case struct {
	Name string
	Q    core.ListQuery
}

// Cases is every filter of GET /records alone, with a date window, and in the combinations a console or an
// integration asks for.
func Cases(sh Shape) []Case {
	yes, no := true, false
	cases := []Case{
		{"type", core.ListQuery{Type: core.RecordFeedback}},
		{"type-idea", core.ListQuery{Type: core.RecordIdea}},
		{"status", core.ListQuery{Statuses: []string{core.StatusProcessed}}},
		{"source", core.ListQuery{Source: "Slack"}},
		{"company-big", core.ListQuery{CompanyID: sh.BigCompany}},
		{"company-small", core.ListQuery{CompanyID: sh.SmallCompany}},
		{"tag-common", core.ListQuery{TagIDs: []core.ID{sh.CommonTag}}},
		{"tag-rare", core.ListQuery{TagIDs: []core.ID{sh.RareTag}}},
		{"tags-two", core.ListQuery{TagIDs: []core.ID{sh.CommonTag, sh.Tags[1]}}},
		{"product", core.ListQuery{ProductID: sh.Products[0]}},
		{"customer-email", core.ListQuery{CustomerEmailKey: sh.Email}},
		{"linked", core.ListQuery{Type: core.RecordFeedback, Linked: &yes}},
		{"unlinked", core.ListQuery{Type: core.RecordFeedback, Linked: &no}},
		{"linked-to", core.ListQuery{LinkedTo: sh.Idea}},
		{"updated-since", core.ListQuery{UpdatedSince: sh.From}},
		{"search", core.ListQuery{Search: "and"}}, // in most records; "not" and "when" in about half
		{"order-updated", core.ListQuery{Order: core.OrderUpdated}},
		{"order-demand", core.ListQuery{Type: core.RecordIdea, Order: core.OrderDemand}},
		{"asc", core.ListQuery{Asc: true}},
	}
	// Every one of them again within a date window, and the tag filter with every other one.
	n := len(cases)
	for _, k := range cases[:n] {
		w := k.Q
		w.From, w.To = sh.From, sh.To
		w.TagIDs = slices.Clone(w.TagIDs)
		cases = append(cases, Case{k.Name + "+dates", w})
	}
	for _, k := range cases[:n] {
		if len(k.Q.TagIDs) > 0 {
			continue
		}
		t := k.Q
		t.TagIDs = []core.ID{sh.CommonTag}
		cases = append(cases, Case{k.Name + "+tag", t})
		t.From, t.To = sh.From, sh.To
		cases = append(cases, Case{k.Name + "+tag+dates", t})
	}
	return append(cases, []Case{
		{"type+status+source+product", core.ListQuery{Type: core.RecordFeedback, Statuses: []string{core.StatusTriage}, Source: "API", ProductID: sh.Products[1]}},
		{"company+tag+search", core.ListQuery{CompanyID: sh.BigCompany, TagIDs: []core.ID{sh.CommonTag}, Search: "not"}},
		{"rare-tag+dates+search", core.ListQuery{TagIDs: []core.ID{sh.RareTag}, From: sh.From, To: sh.To, Search: "when"}},
	}...)
}

// Page is the query a listing case sends to the store: a type always named, as core.List does, and one
// more row than a page to tell whether another follows.
func Page(q core.ListQuery) core.ListQuery {
	if q.Type == "" {
		q.Type = core.RecordFeedback
	}
	q.Limit = core.DefaultPageSize + 1
	return q
}

// Timing is the p50 and the slowest of one case's first page.
type Timing struct {
	Name     string
	P50, Max time.Duration
}

// Measure times the first page of every case rounds times through list and returns each case's p50, and
// the index of the slowest. The rounds take every case in turn, so that a moment of load on a shared
// machine costs each case a round rather than a case all of its rounds.
func Measure(cases []Case, rounds int, list func(core.ListQuery) error) ([]Timing, int, error) {
	times := make([][]time.Duration, len(cases))
	for range rounds {
		for i, k := range cases {
			q := Page(k.Q)
			t0 := time.Now()
			if err := list(q); err != nil {
				return nil, 0, fmt.Errorf("%s: %w", k.Name, err)
			}
			times[i] = append(times[i], time.Since(t0))
		}
	}
	out := make([]Timing, len(cases))
	worst := 0
	for i, k := range cases {
		slices.Sort(times[i])
		out[i] = Timing{k.Name, times[i][len(times[i])/2], times[i][len(times[i])-1]}
		if out[i].P50 > out[worst].P50 {
			worst = i
		}
	}
	return out, worst, nil
}

// Slowest names the n cases of the highest p50, the slowest first, with their p50 and slowest round in ms:
// the line a benchmark logs so that a report names the listing behind its max-p50-ms.
func Slowest(times []Timing, n int) string {
	byP50 := slices.Clone(times)
	slices.SortStableFunc(byP50, func(a, b Timing) int { return cmp.Compare(b.P50, a.P50) })
	parts := make([]string, 0, n)
	for _, t := range byP50[:min(n, len(byP50))] {
		parts = append(parts, fmt.Sprintf("%s p50 %.1f ms (slowest round %.1f)", t.Name, ms(t.P50), ms(t.Max)))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

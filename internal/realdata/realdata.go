// Package realdata generates data sets with the shape of a real export from a CRM or helpdesk, for the
// benchmarks of the importers and the stores: most rows a new customer, company domains with a Zipf-like
// spread beside free-mail addresses, texts of varied length and vocabulary, and tags on a share of rows.
// The same seed gives the same rows, so two arms of a benchmark store the same data. The stores' listing
// benchmarks draw their data set from here too (store/internal/listbench), with their own Shape.
package realdata

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Shape names the proportions of a data set; DefaultShape is the one the benchmarks use.
type Shape struct {
	NewCustomer float64 // share of rows whose customer has not been seen before
	Domains     int     // company domains, Zipf-spread; fewer than 65,535
	FreeMail    int     // one customer in FreeMail writes from a free-mail address (no company)
	Named       float64 // share of customers whose rows give their name
	Tagged      float64 // share of rows with tags (one to three)
	Tags        int     // distinct tag labels, Zipf-spread
	Seed        uint64
}

// DefaultShape gives about 730,000 distinct customers over a million rows, 200 company domains and a fifth
// of the customers on free mail; a third of the rows carry tags.
var DefaultShape = Shape{NewCustomer: 0.73, Domains: 200, FreeMail: 5, Named: 0.6, Tagged: 0.35, Tags: 40, Seed: 1}

// String names the shape for the results file.
func (s Shape) String() string {
	return fmt.Sprintf("%.0f%% of rows a new customer, %d Zipf-spread company domains, 1 customer in %d on free mail, "+
		"%.0f%% of rows tagged from %d labels, Zipf-spread vocabulary of %d words",
		s.NewCustomer*100, s.Domains, s.FreeMail, s.Tagged*100, s.Tags, len(words))
}

// Row is one generated input row.
type Row struct {
	Title, Description string
	Email, Name        string // Name is empty for customers who give none
	Domain             string // the company's domain; empty for free mail
	Created            time.Time
	ExternalID         string
	Tags               []string
}

// Gen produces the rows of one data set in order.
type Gen struct {
	shape       Shape
	rng         *rand.Rand
	text        *Text // drawing from rng, so that a row's text and the rest of it interleave as one sequence
	domain, tag *rand.Zipf
	labels      []string
	customers   []uint16 // per customer: its domain index, or freeMailCustomer
	n           int
	end         time.Time
}

const freeMailCustomer = 0xFFFF

// New returns a generator of shape s.
func New(s Shape) *Gen {
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))
	return &Gen{shape: s, rng: rng, text: newText(rng),
		domain: rand.NewZipf(rng, 1.2, 3, uint64(min(s.Domains, freeMailCustomer)-1)),
		tag:    rand.NewZipf(rng, 1.1, 2, uint64(s.Tags-1)),
		labels: s.TagLabels(),
		end:    time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Text draws the texts of rows alone: a title and a description as Gen's rows have them, for data sets
// that take their customers from elsewhere.
type Text struct {
	rng  *rand.Rand
	word *rand.Zipf
}

// NewText returns a text source; the same seed gives the same texts.
func NewText(seed uint64) *Text {
	return newText(rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
}

func newText(rng *rand.Rand) *Text {
	return &Text{rng: rng, word: rand.NewZipf(rng, 1.07, 2, uint64(len(words)-1))}
}

// Title is one sentence of 3 to 11 words.
func (t *Text) Title() string { return t.sentence(3 + t.rng.IntN(9)) }

// Description is one to five sentences of 4 to 25 words, in two paragraphs for a quarter of them.
func (t *Text) Description() string {
	var desc []string
	for range 1 + t.rng.IntN(5) {
		desc = append(desc, t.sentence(4+t.rng.IntN(22)))
	}
	d := strings.Join(desc, " ")
	if t.rng.IntN(4) == 0 {
		d = strings.Replace(d, ". ", ".\n\n", 1) // paragraphs
	}
	return d
}

// TagLabels are the labels rows carry, the most common first; a benchmark creates them as tags.
func (s Shape) TagLabels() []string {
	out := make([]string, s.Tags)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", words[i%len(words)], i)
	}
	return out
}

var freeMail = []string{"gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "gmx.de"}

var first = strings.Fields(`Anna Ben Chloé Dmitri Emma Farid Grace Hiro Ines Jonas Kofi Lena Marta Noor Olga Pablo
	Quinn Rosa Sven Tariq Uma Viktor Wen Ximena Yusuf Zoë`)
var last = strings.Fields(`Adams Becker Costa Dubois Eriksen Fischer García Horvat Ivanova Jensen Kowalski Lindqvist
	Müller Nakamura O'Brien Petrov Quispe Rossi Schmidt Tanaka Umarov Varga Weber Xu Yilmaz Zhang`)

// Next returns the next row.
func (g *Gen) Next() Row {
	g.n++
	cust := len(g.customers)
	if len(g.customers) == 0 || g.rng.Float64() < g.shape.NewCustomer {
		d := uint16(g.domain.Uint64())
		if g.rng.IntN(g.shape.FreeMail) == 0 {
			d = freeMailCustomer
		}
		g.customers = append(g.customers, d)
	} else {
		cust = g.rng.IntN(len(g.customers))
	}
	r := Row{ExternalID: fmt.Sprintf("ext-%d", g.n)}
	// A customer's name and mailbox follow from its number, so its rows agree.
	h := uint64(cust)*0x9e3779b97f4a7c15 + g.shape.Seed
	fn, ln := first[h%uint64(len(first))], last[(h>>8)%uint64(len(last))]
	box := fmt.Sprintf("%s.%s%d", strings.ToLower(fn), strings.ToLower(ln), cust)
	if d := g.customers[cust]; d == freeMailCustomer {
		r.Email = box + "@" + freeMail[(h>>16)%uint64(len(freeMail))]
	} else {
		r.Domain = fmt.Sprintf("%s%d.example", words[int(d)%len(words)], d)
		r.Email = box + "@" + r.Domain
	}
	if float64((h>>24)%1000) < g.shape.Named*1000 {
		r.Name = fn + " " + ln
	}
	r.Title, r.Description = g.text.Title(), g.text.Description()
	r.Created = g.end.Add(-time.Duration(g.rng.Int64N(int64(730 * 24 * time.Hour)))).Truncate(time.Second)
	if g.rng.Float64() < g.shape.Tagged {
		for range 1 + g.rng.IntN(3) {
			l := g.labels[g.tag.Uint64()]
			if !slices.Contains(r.Tags, l) {
				r.Tags = append(r.Tags, l)
			}
		}
	}
	return r
}

func (t *Text) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[t.word.Uint64()]
	}
	if t.rng.IntN(6) == 0 && n > 3 {
		ws[n/2] += "," // commas make the CSV quote the field
	}
	r := []rune(strings.Join(ws, " "))
	r[0] = unicode.ToUpper(r[0])
	return string(r) + "."
}

package email

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The forward corpus (testdata/forwards) holds inline forwards as each mail client writes them, in the languages
// it ships, with the record expected of each (testdata/forwards/README.md). Unlike the golden corpus, a miss
// here does not fail the test on its own: the share of fully right messages must not fall below
// minForwardAccuracy, which is raised as the parser learns more formats.
const (
	minForwardAccuracy = 1.0
	minForwardCorpus   = 200
)

// forwardWant is the hand-written expectation beside each .eml of the forward corpus.
type forwardWant struct {
	Client        string `json:"client"`
	Lang          string `json:"lang"`
	CustomerEmail string `json:"customer_email"`
	CustomerName  string `json:"customer_name"`
	Title         string `json:"title"`
	Description   string `json:"description"`
}

// forwardTally counts the messages of one client or language, those with the right customer, and those with
// every field right.
type forwardTally struct{ n, customer, all int }

func (t *forwardTally) String() string {
	return fmt.Sprintf("%3d messages, customer %5.1f%%, all fields %5.1f%%", t.n,
		100*float64(t.customer)/float64(t.n), 100*float64(t.all)/float64(t.n))
}

func TestForwardCorpus(t *testing.T) {
	scoreForwards(t, filepath.Join("testdata", "forwards"), minForwardCorpus, minForwardAccuracy)
}

// scoreForwards parses every .eml of dir, compares it with the expectation beside it, logs the tallies by client
// and language and every miss, and fails when dir holds fewer than minCount messages or when the share of fully
// right messages falls below floor.
func scoreForwards(t *testing.T, dir string, minCount int, floor float64) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < minCount {
		t.Fatalf("%s has %d messages, want at least %d", dir, len(files), minCount)
	}
	p := NewParser(goldenInternal)
	total := &forwardTally{}
	byClient, byLang := map[string]*forwardTally{}, map[string]*forwardTally{}
	var misses []string
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".eml")
		want := readForwardWant(t, strings.TrimSuffix(file, ".eml")+".want.json")
		if !strings.HasPrefix(name, want.Client+"_"+want.Lang) {
			t.Errorf("%s: file name does not start with its client and language %s_%s", name, want.Client, want.Lang)
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var wrong []string
		m, err := p.Parse(raw)
		if err != nil {
			wrong = append(wrong, "parse error: "+err.Error())
		} else {
			wrong = compareForward(m, want)
		}
		customerRight := err == nil && strings.EqualFold(m.CustomerEmail, want.CustomerEmail)
		for _, tl := range []*forwardTally{total, tallyOf(byClient, want.Client), tallyOf(byLang, want.Lang)} {
			tl.n++
			if customerRight {
				tl.customer++
			}
			if len(wrong) == 0 {
				tl.all++
			}
		}
		if len(wrong) > 0 {
			misses = append(misses, name+":\n    "+strings.Join(wrong, "\n    "))
		}
	}
	logTallies(t, "client", byClient)
	logTallies(t, "language", byLang)
	for _, miss := range misses {
		t.Logf("miss %s", miss)
	}
	share := float64(total.all) / float64(total.n)
	t.Logf("%s: %s", dir, total)
	if share < floor {
		t.Errorf("%.1f%% of %s is fully right, below the floor of %.1f%%", 100*share, dir, 100*floor)
	}
}

func readForwardWant(t *testing.T, path string) forwardWant {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w forwardWant
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if w.Client == "" || w.Lang == "" || w.CustomerEmail == "" || w.Title == "" || w.Description == "" {
		t.Fatalf("%s: client, lang, customer_email, title and description are required", path)
	}
	return w
}

// compareForward lists the fields of m that differ from want; descriptions are compared with their
// whitespace collapsed, since line wrapping and blank lines differ between a client's text and HTML parts.
func compareForward(m Message, want forwardWant) []string {
	var wrong []string
	check := func(field, got, exp string) {
		if got != exp {
			wrong = append(wrong, fmt.Sprintf("%s: got %q, want %q", field, got, exp))
		}
	}
	check("customer_email", strings.ToLower(m.CustomerEmail), strings.ToLower(want.CustomerEmail))
	check("customer_name", m.CustomerName, want.CustomerName)
	check("title", m.Title, want.Title)
	check("description", strings.Join(strings.Fields(m.Description), " "), strings.Join(strings.Fields(want.Description), " "))
	return wrong
}

func tallyOf(m map[string]*forwardTally, key string) *forwardTally {
	if m[key] == nil {
		m[key] = &forwardTally{}
	}
	return m[key]
}

func logTallies(t *testing.T, what string, m map[string]*forwardTally) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-8s %-12s %s", what, k, m[k])
	}
}

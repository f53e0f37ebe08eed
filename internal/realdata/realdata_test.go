package realdata

import (
	"encoding/csv"
	"io"
	"testing"
)

// TestShape checks the proportions the benchmarks rely on, at a size where they have settled.
func TestShape(t *testing.T) {
	const n = 100_000
	g := New(DefaultShape)
	emails, domains := map[string]bool{}, map[string]bool{}
	tagged, free := 0, 0
	for range n {
		r := g.Next()
		emails[r.Email] = true
		if r.Domain != "" {
			domains[r.Domain] = true
		} else {
			free++
		}
		if len(r.Tags) > 0 {
			tagged++
		}
		if r.Title == "" || r.Description == "" {
			t.Fatalf("empty text: %+v", r)
		}
	}
	share := func(k int) float64 { return float64(k) / n }
	if s := share(len(emails)); s < 0.70 || s > 0.76 {
		t.Errorf("distinct customers: %.3f of rows, want about 0.73", s)
	}
	if len(domains) < 150 || len(domains) > 200 {
		t.Errorf("company domains: %d, want up to 200 with most seen", len(domains))
	}
	if s := share(free); s < 0.12 || s > 0.28 {
		t.Errorf("free-mail rows: %.3f", s)
	}
	if s := share(tagged); s < 0.30 || s > 0.40 {
		t.Errorf("tagged rows: %.3f", s)
	}
}

// TestCSV reads the generated file back as CSV and checks it holds the rows the generator gives.
func TestCSV(t *testing.T) {
	const n = 5000
	rd := csv.NewReader(CSV(New(DefaultShape), n))
	head, err := rd.Read()
	if err != nil || len(head) != len(CSVHeader) {
		t.Fatalf("header %v, %v", head, err)
	}
	g := New(DefaultShape)
	for i := 0; ; i++ {
		rec, err := rd.Read()
		if err == io.EOF {
			if i != n {
				t.Fatalf("%d rows, want %d", i, n)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := g.Next(); rec[0] != want.Title || rec[1] != want.Description || rec[2] != want.Email {
			t.Fatalf("row %d: %q, want %+v", i, rec, want)
		}
	}
}

package webhook

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzPayload feeds arbitrary bodies and mapping paths to the parser: it must never panic, and whatever it
// accepts must be a record core would take (a title within the limit, a dedup key).
func FuzzPayload(f *testing.F) {
	for name := range goldenEntries {
		b, err := os.ReadFile(filepath.Join("testdata", "presets", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "items[*].summary", "labels")
	}
	f.Add([]byte(`[{"a": {"b": [1, "x", null, {"c": true}]}}]`), "a.b[3].c", "a.b[*]")
	f.Add([]byte(`{"x": [{"k": {"r": "v"}, "t": "y"}]}`), "x[k.r=v].t", "$.x[0]")
	f.Add([]byte(`"just a string"`), "$", "[")
	f.Fuzz(func(t *testing.T, body []byte, titlePath, tagsPath string) {
		m := Mapping{Title: titlePath, Description: "description", Tags: tagsPath}
		paths, err := compileMapping(m)
		if err != nil {
			return
		}
		e := &entrySpec{Config: Config{Name: "fuzz", Source: "Other"}, paths: paths}
		recs, err := e.extract(body)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.sub.Title == "" || len([]rune(r.sub.Title)) > 500 || r.sub.DedupKey == "" {
				t.Fatalf("accepted a record core would refuse: %+v", r.sub)
			}
		}
	})
}

package csvimport

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenRow is a row as the golden files show it: the fields of a good row, or the cells and the reason
// of a bad one.
type goldenRow struct {
	Line          int      `json:"line"`
	Title         string   `json:"title,omitempty"`
	Description   string   `json:"description,omitempty"`
	CustomerEmail string   `json:"customer_email,omitempty"`
	CustomerName  string   `json:"customer_name,omitempty"`
	Source        string   `json:"source,omitempty"`
	ExternalID    string   `json:"external_id,omitempty"`
	CreatedAt     string   `json:"created_at,omitempty"`
	Tags          []string `json:"tags,omitempty"`
	Columns       []string `json:"columns,omitempty"`
	Error         string   `json:"error,omitempty"`
}

type goldenFile struct {
	Encoding  string            `json:"encoding,omitempty"`
	Delimiter string            `json:"delimiter,omitempty"`
	Header    []string          `json:"header,omitempty"`
	Columns   map[string]string `json:"columns,omitempty"`
	Rows      []goldenRow       `json:"rows,omitempty"`
	Fatal     string            `json:"fatal,omitempty"`
}

type caseOptions struct {
	Mapping     map[string]string `json:"mapping"`
	MaxRowBytes int               `json:"max_row_bytes"`
	DateOrder   DateOrder         `json:"date_order"`
	Encoding    string            `json:"encoding"`
	Delimiter   rune              `json:"delimiter"` // a code point: 124 is '|'
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestReaderGolden reads every testdata/reader/*.csv (with the options of its .opts.json) and compares
// the rows with NAME.golden.json and the errors file with NAME.errors.golden.csv (absent: no bad rows).
func TestReaderGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "reader", "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var cases int
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden.csv") {
			continue
		}
		cases++
		name := strings.TrimSuffix(in, ".csv")
		t.Run(filepath.Base(name), func(t *testing.T) {
			got, errorsCSV := readGolden(t, name)
			compareGolden(t, name+".golden.json", got)
			compareGolden(t, name+".errors.golden.csv", errorsCSV)
		})
	}
	if cases < 20 {
		t.Fatalf("found %d golden cases, want the whole corpus", cases)
	}
}

func readGolden(t *testing.T, name string) (doc, errorsCSV []byte) {
	t.Helper()
	var opts caseOptions
	if b, err := os.ReadFile(name + ".opts.json"); err == nil {
		if err := json.Unmarshal(b, &opts); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(name + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var g goldenFile
	r, err := NewReader(f, ReadOptions(opts))
	if err != nil {
		g.Fatal = err.Error()
		return marshalGolden(t, g), nil
	}
	g.Encoding, g.Delimiter, g.Header = r.Encoding(), string(r.Delimiter()), r.Header()
	g.Columns = map[string]string{}
	for _, fn := range fieldNames {
		if c := r.Column(fn); c != "" {
			g.Columns[fn] = c
		}
	}
	var errBuf bytes.Buffer
	ew := NewErrorWriter(r, func() (io.WriteCloser, error) { return nopCloser{&errBuf}, nil })
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		g.Rows = append(g.Rows, toGolden(row))
		if row.Err != nil {
			if err := ew.Write(row.Columns, row.Err.Error()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := ew.Close(); err != nil {
		t.Fatal(err)
	}
	return marshalGolden(t, g), errBuf.Bytes()
}

func toGolden(row Row) goldenRow {
	if row.Err != nil {
		return goldenRow{Line: row.Line, Columns: row.Columns, Error: row.Err.Error()}
	}
	g := goldenRow{Line: row.Line, Title: row.Fields.Title, Description: row.Fields.Description,
		CustomerEmail: row.Fields.CustomerEmail, CustomerName: row.Fields.CustomerName, Source: row.Fields.Source,
		ExternalID: row.Fields.ExternalID, Tags: row.Fields.Tags}
	if !row.Fields.CreatedAt.IsZero() {
		g.CreatedAt = row.Fields.CreatedAt.Format(time.RFC3339Nano)
	}
	return g
}

func marshalGolden(t *testing.T, g goldenFile) []byte {
	t.Helper()
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// compareGolden checks got against the file; an empty got means the file must not exist.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if len(got) == 0 {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) && len(got) == 0 {
		return
	}
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -run TestReaderGolden -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

package csvimport

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzReader runs whole inputs through the reader: it must neither panic nor loop, every row must start
// after the one before, and a good row always has a title.
func FuzzReader(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "reader", "*.csv"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil && len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Add([]byte("title,body\n\"a\n\"b\" c\n\"\"\"\n"))
	f.Add([]byte("\xFF\xFEt\x00\n\x00\"\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in), ReadOptions{MaxRowBytes: 256})
		if err != nil {
			return
		}
		last := 0
		for n := 0; ; n++ {
			if n > len(in)+1 {
				t.Fatalf("more rows than bytes: the reader does not advance")
			}
			row, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if row.Line <= last {
				t.Fatalf("row on line %d after one on line %d", row.Line, last)
			}
			last = row.Line
			if row.Err == nil && row.Fields.Title == "" {
				t.Fatalf("good row on line %d without a title", row.Line)
			}
			for _, c := range row.Columns {
				if !utf8.ValidString(c) {
					t.Fatalf("cell %q is not UTF-8", c)
				}
			}
		}
	})
}

// FuzzSplitter compares the splitter with encoding/csv on the inputs that encoding/csv accepts in strict
// mode: there both must give the same records.
func FuzzSplitter(f *testing.F) {
	for _, s := range []string{"a,b\nc,d\n", "\"a\"\"b\",\"c\nd\"\r\n", "a,\"\"\n,\n", "\"x\r\n\",y\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		cr := csv.NewReader(bytes.NewReader([]byte(in)))
		cr.FieldsPerRecord = -1
		want, err := cr.ReadAll()
		if err != nil {
			return
		}
		var nonBlank [][]string
		for _, rec := range want {
			if !blank(rec) {
				nonBlank = append(nonBlank, rec)
			}
		}
		got := splitAll(t, in, ',', len(in)+1)
		if !reflect.DeepEqual(got, nonBlank) {
			t.Fatalf("splitter %q\nencoding/csv %q", got, nonBlank)
		}
	})
}

package email

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected JSON files in testdata from the parser's output")

// goldenInternal is the company of the golden corpus: its people forward customer mail to feedback@example.com.
var goldenInternal = []string{"example.com"}

// golden is the expected outcome for one .eml file: the message, or the error text.
type golden struct {
	Message *Message `json:"message,omitempty"`
	Error   string   `json:"error,omitempty"`
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("golden corpus has %d messages, want at least 30", len(files))
	}
	p := NewParser(goldenInternal)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".eml")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var got golden
			if m, err := p.Parse(raw); err != nil {
				got.Error = err.Error()
			} else {
				got.Message = &m
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(got); err != nil {
				t.Fatal(err)
			}
			out := buf.Bytes()
			want := strings.TrimSuffix(file, ".eml") + ".json"
			if *update {
				if err := os.WriteFile(want, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			exp, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if !bytes.Equal(out, exp) {
				t.Errorf("parse %s differs from %s:\ngot:\n%s\nwant:\n%s", file, want, out, exp)
			}
		})
	}
}

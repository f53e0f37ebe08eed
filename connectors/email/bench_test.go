package email

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkParse parses the golden corpus; ns/op is per corpus pass.
func BenchmarkParse(b *testing.B) {
	files, _ := filepath.Glob("testdata/*.eml")
	var raws [][]byte
	size := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
		size += len(raw)
	}
	p := NewParser(goldenInternal)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, raw := range raws {
			_, _ = p.Parse(raw)
		}
	}
}

// BenchmarkParseHostile measures bodies built to defeat line-based heuristics; each must stay linear.
func BenchmarkParseHostile(b *testing.B) {
	cases := map[string]string{
		"header_lines":  strings.Repeat("From: a@b.cc\n", 100_000),
		"markers":       strings.Repeat("---------- Forwarded message ---------\nFrom: a@b.cc\nSubject: Fwd: x\n\n", 30_000),
		"attributions":  strings.Repeat("On 2026 x wrote\n", 100_000),
		"long_line":     "On 2026 " + strings.Repeat("x", 1_500_000) + " wrote:",
		"quote_marks":   strings.Repeat(">", 1_500_000),
		"rules":         strings.Repeat("__________\n", 150_000),
		"nested_quotes": strings.Repeat("<blockquote><div>", 100_000),
	}
	p := NewParser(nil)
	for name, body := range cases {
		for _, ct := range []string{"text/plain; format=flowed", "text/html"} {
			raw := []byte("From: a@b.cc\r\nSubject: Fwd: x\r\nContent-Type: " + ct + "\r\n\r\n" + body)
			b.Run(name+"/"+strings.Split(ct, ";")[0], func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					_, _ = p.Parse(raw)
				}
			})
		}
	}
}

// BenchmarkParseMix parses one each of the messages BenchmarkIngest delivers, so the parser's share of the
// ingest cost can be profiled without a server; ns/op is per message.
func BenchmarkParseMix(b *testing.B) {
	raws := corpus(b, benchTemplates...)
	p := NewParser(goldenInternal)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _ = p.Parse(raws[i%len(raws)])
		i++
	}
}

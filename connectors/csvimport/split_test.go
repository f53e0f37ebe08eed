package csvimport

import (
	"bufio"
	"encoding/csv"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// splitAll returns the non-blank records of s, or the reasons of bad ones as a single-cell "!reason".
func splitAll(t testing.TB, s string, comma byte, maxBytes int) [][]string {
	t.Helper()
	sp := newSplitter(bufio.NewReaderSize(strings.NewReader(s), 16), comma, maxBytes)
	var out [][]string
	for i := 0; ; i++ {
		if i > len(s)+1 {
			t.Fatalf("splitter does not advance on %q", s)
		}
		rec, err := sp.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.err != nil:
			out = append(out, []string{"!" + rec.err.Error()})
		case !blank(rec.fields):
			out = append(out, rec.fields)
		}
	}
}

func TestSplitter(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name string
		in   string
		want [][]string
	}{
		{"plain", "a,b\nc,d\n", [][]string{{"a", "b"}, {"c", "d"}}},
		{"no final newline", "a,b", [][]string{{"a", "b"}}},
		{"crlf", "a,b\r\nc,d\r\n", [][]string{{"a", "b"}, {"c", "d"}}},
		{"empty fields", ",,\n", nil},
		{"quoted newline crlf", "\"a\r\nb\",c\r\n", [][]string{{"a\nb", "c"}}},
		{"cr inside quotes kept", "\"a\rb\",c\n", [][]string{{"a\rb", "c"}}},
		{"quoted then crlf", "\"a\"\r\nb\n", [][]string{{"a"}, {"b"}}},
		{"doubled quote", "\"say \"\"hi\"\"\"\n", [][]string{{`say "hi"`}}},
		{"bare quote", "a\"b,c\n", [][]string{{`a"b`, "c"}}},
		{"quote then text", "\"a\" b,c\n", [][]string{{`"a" b`, "c"}}},
		{"quote then text splits", "\"a,\"b,c\n", [][]string{{`"a`, `"b`, "c"}}},
		{"unclosed on last line", "x,\"b,c", [][]string{{"x", `"b`, "c"}}},
		{"malformed multiline is one bad row", "\"a\nb\" c,d\ne,f\n", [][]string{{"!" + errMalformedQuote.Error()}, {"e", "f"}}},
		{"unterminated recovers later lines", "\"a,b\nc,d\ne,f\n", [][]string{{"!" + errUnterminated.Error()}, {"c", "d"}, {"e", "f"}}},
		{"long line skipped", long + "\na,b\n", [][]string{{"!row longer than 64 bytes"}, {"a", "b"}}},
		{"long quoted record recovers", "\"open\n" + strings.Repeat("y,z\n", 20), append([][]string{{"!row longer than 64 bytes"}}, repeatRecord([]string{"y", "z"}, 20)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitAll(t, tt.in, ',', 64); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func repeatRecord(r []string, n int) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = r
	}
	return out
}

// TestSplitterMatchesEncodingCSV writes random records with encoding/csv, including fields longer than
// the read buffer, and expects them back unchanged.
func TestSplitterMatchesEncodingCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", " ", ",", ";", "\t", "|", "\"", "\n", "\r\n", "é", "🎉", "''"}
	for _, comma := range Delimiters {
		var want [][]string
		var sb strings.Builder
		w := csv.NewWriter(&sb)
		w.Comma = rune(comma)
		for range 300 {
			rec := make([]string, 1+rng.IntN(6))
			for j := range rec {
				var f strings.Builder
				n := rng.IntN(12)
				if rng.IntN(50) == 0 {
					n = 5000 // spans many 16-byte buffer fills
				}
				for range n {
					f.WriteString(alphabet[rng.IntN(len(alphabet))])
				}
				rec[j] = strings.ReplaceAll(f.String(), "\r\n", "\n")
			}
			if blank(rec) {
				continue
			}
			want = append(want, rec)
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		if got := splitAll(t, sb.String(), byte(comma), 1<<20); !reflect.DeepEqual(got, want) {
			t.Fatalf("delimiter %q: records differ from what encoding/csv wrote", comma)
		}
	}
}

func TestSniffDelimiter(t *testing.T) {
	tests := []struct {
		name, sample string
		want         byte
	}{
		{"comma", "a,b,c\n1,2,3\n", ','},
		{"semicolon with commas in text", "a;b\n1,5;x\n2,5;y\n", ';'},
		{"tab", "a\tb\n1\t2\n", '\t'},
		{"pipe", "a|b\n1|2\n", '|'},
		{"quoted delimiters do not count", "\"a;b;c\",d\n\"1;2;3\",4\n", ','},
		{"one column", "title\nhello\n", ','},
		{"header decides over a noisy row", "a;b;c\nx;y;z\nfree, text, here;1;2\n", ';'},
		// testdata/reader/chosen-delimiter.csv: a tie, which the comma wins; only a person can tell.
		{"a tie goes to the comma", "title|notes, more\nHello|x, y\nBye|z, w\n", ','},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sniffDelimiter([]byte(tt.sample), true); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

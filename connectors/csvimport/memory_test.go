package csvimport

import (
	"fmt"
	"io"
	"runtime"
	"testing"
)

// rowSource generates CSV rows on the fly, so a file of any size can be read without being stored.
type rowSource struct {
	rows, next int
	stray      bool // a stray quote opens row 1 and no quote follows, so lines are read again
	buf        []byte
}

func (s *rowSource) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) && s.next <= s.rows {
		switch {
		case s.next == 0:
			s.buf = append(s.buf, "Title,Description,Email,Created,ID,Tags\r\n"...)
		case s.stray:
			if s.next == 1 {
				s.buf = append(s.buf, '"')
			}
			s.buf = fmt.Appendf(s.buf, "Row %d title,Plain description,user%d@acme.com,2024-03-01,ext-%d,a\r\n", s.next, s.next%5000, s.next)
		default:
			s.buf = fmt.Appendf(s.buf, "Row %d title,\"Some description, with a comma\nand a second line\",user%d@acme.com,2024-03-01T10:00:00Z,ext-%d,\"a;b\"\r\n",
				s.next, s.next%5000, s.next)
		}
		s.next++
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	return n, nil
}

// TestReaderConstantMemory reads about 130 MB and checks that the heap never holds more than a small,
// fixed amount, also when a stray quote makes the reader re-read lines.
func TestReaderConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 130 MB")
	}
	for _, tc := range []struct {
		name  string
		stray bool
	}{{"clean", false}, {"stray quote", true}} {
		t.Run(tc.name, func(t *testing.T) {
			const rows = 1_000_000
			r, err := NewReader(&rowSource{rows: rows, stray: tc.stray}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var ms runtime.MemStats
			var peak uint64
			n := 0
			for ; ; n++ {
				row, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if row.Err != nil && !(tc.stray && row.Line == 2) {
					t.Fatalf("line %d: %v", row.Line, row.Err)
				}
				if n%50_000 == 0 {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
			}
			if n != rows {
				t.Fatalf("read %d rows, want %d", n, rows)
			}
			if peak > 32<<20 {
				t.Errorf("heap reached %d MiB while streaming", peak>>20)
			}
			t.Logf("peak heap %.1f MiB", float64(peak)/(1<<20))
		})
	}
}

func BenchmarkReader(b *testing.B) {
	const rows = 100_000
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(&rowSource{rows: rows}, ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

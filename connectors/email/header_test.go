package email

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/emersion/go-message/textproto"
)

// checkHeaderInPlace fails when headerInPlace takes raw but reads it differently from textproto.ReadHeader:
// other fields, in another order, or another start of the body.
func checkHeaderInPlace(t *testing.T, raw []byte) (took bool) {
	t.Helper()
	got, end, ok := headerInPlace(raw)
	if !ok {
		return false
	}
	br := bufio.NewReader(bytes.NewReader(raw))
	want, err := textproto.ReadHeader(br)
	if err != nil {
		t.Fatalf("headerInPlace read a header that ReadHeader refuses (%v): %q", err, raw)
	}
	if rest, _ := io.ReadAll(br); !bytes.Equal(rest, raw[end:]) {
		t.Fatalf("body starts at %d, ReadHeader leaves %q: %q", end, rest, raw)
	}
	if g, w := fieldList(got), fieldList(want); !slices.Equal(g, w) {
		t.Fatalf("fields\n%q\nwant\n%q\nof %q", g, w, raw)
	}
	for _, k := range fieldList(want) {
		if g, w := got.Values(k), want.Values(k); !slices.Equal(g, w) {
			t.Fatalf("values of %q: %q, want %q", k, g, w)
		}
	}
	return true
}

func fieldList(h textproto.Header) []string {
	var out []string
	for f := h.Fields(); f.Next(); {
		out = append(out, f.Key(), f.Value())
	}
	return out
}

func TestHeaderInPlace(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.eml")
	took := 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if checkHeaderInPlace(t, raw) {
			took++
		}
	}
	if took < len(files)*3/4 {
		t.Errorf("the fast path took %d of %d corpus messages", took, len(files))
	}
	for _, tc := range []struct {
		raw  string
		took bool
	}{
		{"Subject: a\r\n b\r\n\tc\r\nFrom: x@y.z\r\n\r\nbody", true},
		{"Subject: x\r\r\nTo : y\n\nbody", true},
		{"Subject: one\nSubject: two\n: nameless\n\n", true},
		{"X-Empty:\n\n", true},
		{" leading space\n\n", false},
		{"no colon\n\n", false},
		{"Bad Key: x\n\n", false},
		{"Subject: x\n", false}, // no blank line
		{"Subject: x", false},
		{"", false},
	} {
		if got := checkHeaderInPlace(t, []byte(tc.raw)); got != tc.took {
			t.Errorf("%q: fast path %v, want %v", tc.raw, got, tc.took)
		}
	}
}

// FuzzHeaderInPlace: whatever headerInPlace takes, it reads as textproto.ReadHeader does.
func FuzzHeaderInPlace(f *testing.F) {
	f.Add([]byte("Subject: a\r\n b\r\nFrom: x@y.z\r\n\r\nbody"))
	f.Add([]byte("A: 1\nA: 2\n\t3\r\n\r\n"))
	f.Add([]byte("K\t: v \r \r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) { checkHeaderInPlace(t, raw) })
}

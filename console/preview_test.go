package console

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// hugeCSV reads as a CSV file of size bytes, made up as it is read, and fails any read past limit, so a
// reader that goes on past the first rows fails its test.
type hugeCSV struct {
	size, limit, off int64
	pending          []byte
	line             int
}

var errReadTooFar = errors.New("read past the bound the preview must keep to")

func (h *hugeCSV) Read(p []byte) (int, error) {
	if h.off >= h.size {
		return 0, io.EOF
	}
	if h.off >= h.limit {
		return 0, errReadTooFar
	}
	if len(h.pending) == 0 {
		if h.line == 0 {
			h.pending = []byte("title,description,customer_email\n")
		} else {
			h.pending = fmt.Appendf(nil, "Row %d,%s,row%d@acme.com\n", h.line, strings.Repeat("text ", 20), h.line)
		}
		h.line++
	}
	n := copy(p, h.pending)
	n = int(min(int64(n), h.size-h.off, h.limit-h.off))
	h.pending = h.pending[n:]
	h.off += int64(n)
	return n, nil
}

// TestPreviewReadsOnlyTheFirstRows: the preview of a 1 GiB file reads its first rows and stops, well
// within the first MiB; the reader fails any read beyond.
func TestPreviewReadsOnlyTheFirstRows(t *testing.T) {
	for _, c := range []importChoice{
		{RecordType: core.RecordFeedback},
		{RecordType: core.RecordFeedback, Encoding: "windows-1252", Delimiter: ','},
	} {
		in := &hugeCSV{size: 1 << 30, limit: 1 << 20}
		var d previewData
		readPreview(in, c, &d)
		if d.Problem != "" || len(d.Rows) != previewRows || d.Rows[previewRows-1].Cells[0] != fmt.Sprintf("Row %d", previewRows) {
			t.Fatalf("choice %+v: problem %q, %d rows", c, d.Problem, len(d.Rows))
		}
		t.Logf("choice %+v: the preview read %d KiB of a 1 GiB file", c, in.off>>10)
	}

	// The bound is real: a reader told to read it all meets it.
	in := &hugeCSV{size: 1 << 30, limit: 1 << 20}
	if _, err := io.Copy(io.Discard, in); !errors.Is(err, errReadTooFar) {
		t.Fatalf("reading on past the bound: %v", err)
	}
}

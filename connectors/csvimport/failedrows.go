package csvimport

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// failedKeeper gathers a run's failed rows, up to the bounds, until the next flush stores them.
type failedKeeper struct {
	header  []string
	pending []core.FailedRow
	rows    int  // kept or pending
	bytes   int  // of their cells
	full    bool // a row did not fit: the rows kept are the first ones, with no gap
}

func (k *failedKeeper) add(row Row, reason string) {
	if k.full {
		return
	}
	n := 0
	for _, c := range row.Columns {
		n += len(c)
	}
	if k.rows >= FailedRowsKept || k.bytes+n > FailedBytesKept {
		k.full = true
		return
	}
	k.rows++
	k.bytes += n
	k.pending = append(k.pending, core.FailedRow{Line: row.Line, Reason: reason, Cells: row.Columns})
}

// flush stores the pending rows with the run. Losing them would lose the only copy a run without an errors
// file has, so a failure fails the run, as a failing errors file does.
func (k *failedKeeper) flush(ctx context.Context, svc connectors.Service, ws, run core.ID) error {
	if len(k.pending) == 0 || run == "" {
		return nil
	}
	if err := svc.KeepFailedRows(ctx, ws, run, k.header, k.pending); err != nil {
		return fmt.Errorf("keep failed rows: %w", err)
	}
	k.pending = k.pending[:0]
	return nil
}

// WriteFailedRows writes the failed rows kept with a run as CSV for a spreadsheet: a UTF-8 byte order
// mark, then a header of "line", the input's header and "error", then each row's line, cells and reason.
// Cells that a spreadsheet would run as a formula are defused as in the errors file.
func WriteFailedRows(w io.Writer, f core.FailedRows) error {
	if _, err := io.WriteString(w, "\uFEFF"); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	width := len(f.Header)
	for _, r := range f.Rows {
		width = max(width, len(r.Cells))
	}
	record := func(first string, cells []string, last string) []string {
		out := make([]string, width+2)
		out[0] = first
		copy(out[1:], cells)
		out[width+1] = last
		return out
	}
	if err := cw.Write(defuse(record("line", f.Header, "error"))); err != nil {
		return err
	}
	for _, r := range f.Rows {
		if err := cw.Write(defuse(record(strconv.Itoa(r.Line), r.Cells, r.Reason))); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

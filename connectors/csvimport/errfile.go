package csvimport

import (
	"encoding/csv"
	"io"
	"path/filepath"
	"strings"
)

// ErrorsFileName names the errors file of an input: "export.csv" → "export.errors.csv".
func ErrorsFileName(input string) string {
	base := filepath.Base(input)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base + ".errors.csv"
}

// ErrorWriter writes the errors file: the input's header and the cells of every bad row, each with an
// added `error` column. It keeps the input's delimiter and line ends so the file opens like the input
// did, and starts with a UTF-8 BOM unless the input was BOM-less UTF-8 (Excel needs the BOM to read it
// as UTF-8). Nothing is created until the first bad row.
type ErrorWriter struct {
	open   func() (io.WriteCloser, error)
	header []string
	comma  rune
	bom    bool
	crlf   bool
	wc     io.WriteCloser
	w      *csv.Writer
	n      int
}

// NewErrorWriter prepares the errors file for the input read by r; open creates it when needed.
func NewErrorWriter(r *Reader, open func() (io.WriteCloser, error)) *ErrorWriter {
	return &ErrorWriter{open: open, header: r.Header(), comma: r.Delimiter(), bom: r.Encoding() != EncUTF8, crlf: r.CRLF()}
}

// Write adds one bad row.
func (e *ErrorWriter) Write(columns []string, reason string) error {
	if e.w == nil {
		wc, err := e.open()
		if err != nil {
			return err
		}
		e.wc, e.w = wc, csv.NewWriter(wc)
		e.w.Comma, e.w.UseCRLF = e.comma, e.crlf
		if e.bom {
			if _, err := io.WriteString(wc, "\uFEFF"); err != nil {
				return err
			}
		}
		if err := e.w.Write(defuse(append(append([]string(nil), e.header...), "error"))); err != nil {
			return err
		}
	}
	// Short rows are padded so the reason sits in the error column; a row with extra cells keeps them.
	cells := make([]string, max(len(columns), len(e.header)), max(len(columns), len(e.header))+1)
	copy(cells, columns)
	e.n++
	return e.w.Write(defuse(append(cells, reason)))
}

// defuse keeps a spreadsheet from reading a cell as a formula: a cell that starts with '=', '+', '-', '@',
// a tab or a carriage return gets a leading single quote, as does one that already starts with a quote,
// so that the original is always the cell without its first quote. It changes cells in place.
func defuse(cells []string) []string {
	for i, c := range cells {
		if c == "" {
			continue
		}
		switch c[0] {
		case '=', '+', '-', '@', '\t', '\r', '\'':
			cells[i] = "'" + c
		}
	}
	return cells
}

// Count is the number of rows written.
func (e *ErrorWriter) Count() int { return e.n }

// Close flushes and closes the file, if one was created.
func (e *ErrorWriter) Close() error {
	if e.w == nil {
		return nil
	}
	e.w.Flush()
	err := e.w.Error()
	if cerr := e.wc.Close(); err == nil {
		err = cerr
	}
	e.w = nil
	return err
}

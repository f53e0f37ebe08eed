package csvimport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// DefaultMaxRowBytes bounds one record. A description may hold 100,000 characters, so this leaves room;
// a longer record is almost always a quote that never closes, and the bound keeps memory constant.
const DefaultMaxRowBytes = 1 << 20

// ReadOptions adjusts a Reader.
type ReadOptions struct {
	Mapping     map[string]string // field name (FieldTitle, …) → header name; aliases fill the rest
	MaxRowBytes int               // 0: DefaultMaxRowBytes
	DateOrder   DateOrder         // how to read dates of digits only; see DateOrder
	Encoding    string            // "" detects it; else one of Encodings
	Delimiter   rune              // 0 detects it; else one of Delimiters
}

// Row is one data record: its cells as read and the fields taken from them, or why it cannot be imported.
type Row struct {
	Line    int      // physical line the record starts on, 1-based
	Columns []string // the cells as read, for the errors file
	Fields  Fields
	Err     error // nil for a good row
}

// Fields are a row's values, trimmed. CreatedAt is zero when the row has none.
type Fields struct {
	Title         string
	Description   string
	CustomerEmail string
	CustomerName  string
	Source        string
	ExternalID    string
	CreatedAt     time.Time
	Tags          []string
	Release       string
	Timeframe     string
}

// ErrTitleRequired is the reason for a row with a blank title (the contract's text).
var ErrTitleRequired = errors.New("title is required")

// Reader streams the rows of one CSV file. Only one record is held at a time.
type Reader struct {
	sp     *splitter
	header []string
	cols   columnMap
	enc    string
	crlf   bool
	dates  dateParser
}

// NewReader detects the encoding and the delimiter, and reads and matches the header. Its errors mean the
// file cannot be imported at all: a read failure, or a *FormatError (empty, no title column, a mapping
// naming a missing column).
func NewReader(r io.Reader, opts ReadOptions) (*Reader, error) {
	if err := CheckDelimiter(opts.Delimiter); err != nil {
		return nil, &FormatError{Err: err}
	}
	if err := CheckEncoding(opts.Encoding); err != nil {
		return nil, &FormatError{Err: err}
	}
	dec, enc, err := decode(r, opts.Encoding)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	br := bufio.NewReaderSize(dec, sniffBytes)
	sample, err := br.Peek(sniffBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("read: %w", err)
	}
	maxRow := opts.MaxRowBytes
	if maxRow <= 0 {
		maxRow = DefaultMaxRowBytes
	}
	comma := byte(opts.Delimiter)
	if comma == 0 {
		comma = sniffDelimiter(sample, err == io.EOF)
	}
	rd := &Reader{sp: newSplitter(br, comma, maxRow), enc: enc, dates: dateParser{order: opts.DateOrder}}
	for {
		rec, err := rd.sp.next()
		if err == io.EOF {
			return nil, &FormatError{Err: errors.New("empty file: no header row")}
		}
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		if rec.err != nil {
			return nil, &FormatError{Err: fmt.Errorf("header on line %d: %w", rec.line, rec.err)}
		}
		if blank(rec.fields) {
			continue
		}
		rec.fields[0] = strings.TrimPrefix(rec.fields[0], "\uFEFF")
		rd.header, rd.crlf = rec.fields, rec.crlf
		break
	}
	if rd.cols, err = resolveColumns(rd.header, opts.Mapping); err != nil {
		return nil, &FormatError{Err: err, Header: rd.header, Encoding: rd.enc, Delimiter: rd.Delimiter()}
	}
	return rd, nil
}

// Header is the header row as read.
func (r *Reader) Header() []string { return r.header }

// Encoding names the detected encoding (EncUTF8, …).
func (r *Reader) Encoding() string { return r.enc }

// Delimiter is the sniffed delimiter.
func (r *Reader) Delimiter() rune { return rune(r.sp.comma) }

// CRLF reports whether the header line ended with \r\n.
func (r *Reader) CRLF() bool { return r.crlf }

// Column names the header cell feeding a field ("" when none does), for messages.
func (r *Reader) Column(field string) string {
	f, ok := fieldByName(field)
	if !ok || r.cols[f] < 0 {
		return ""
	}
	return r.header[r.cols[f]]
}

// Next returns the next row, skipping blank lines. A malformed row comes back with Err set; the error
// return is io.EOF at the end or a read failure, after which the rest of the file is lost.
func (r *Reader) Next() (Row, error) {
	for {
		rec, err := r.sp.next()
		if err == io.EOF {
			return Row{}, io.EOF
		}
		if err != nil {
			return Row{}, fmt.Errorf("read line %d: %w", r.sp.line+1, err)
		}
		if rec.err == nil && blank(rec.fields) {
			continue
		}
		row := Row{Line: rec.line, Columns: rec.fields, Err: rec.err}
		if row.Err == nil {
			row.Fields, row.Err = r.fields(rec.fields)
		}
		return row, nil
	}
}

func (r *Reader) fields(cells []string) (Fields, error) {
	if n := lastNonBlank(cells) + 1; n > len(r.header) {
		return Fields{}, fmt.Errorf("row has %d cells, the header has %d", n, len(r.header))
	}
	get := func(f field) string {
		if i := r.cols[f]; i >= 0 && i < len(cells) {
			return strings.TrimSpace(cells[i])
		}
		return ""
	}
	fs := Fields{
		Title:         get(fTitle),
		Description:   get(fDescription),
		CustomerEmail: get(fCustomerEmail),
		CustomerName:  get(fCustomerName),
		Source:        get(fSource),
		ExternalID:    get(fExternalID),
		Tags:          splitTags(get(fTags)),
		Release:       get(fRelease),
		Timeframe:     get(fTimeframe),
	}
	if fs.Title == "" {
		return fs, ErrTitleRequired
	}
	var err error
	fs.CreatedAt, err = r.dates.parse(get(fCreatedAt))
	return fs, err
}

func lastNonBlank(cells []string) int {
	for i := len(cells) - 1; i >= 0; i-- {
		if strings.TrimSpace(cells[i]) != "" {
			return i
		}
	}
	return -1
}

// splitTags splits a tags cell on ',' or ';', dropping blanks and repeats (ignoring case).
func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
next:
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		for _, seen := range out {
			if strings.EqualFold(seen, t) {
				continue next
			}
		}
		out = append(out, t)
	}
	return out
}

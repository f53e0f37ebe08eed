package csvimport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Problems with the CSV syntax of one record. The splitter reports them on that record and goes on.
var (
	errUnterminated   = errors.New("unterminated quoted field")
	errMalformedQuote = errors.New(`malformed quoted field: a '"' inside quotes must be doubled`)
)

type rowTooLongError struct{ max int }

func (e rowTooLongError) Error() string { return fmt.Sprintf("row longer than %d bytes", e.max) }

// errPartialLine tells next that the record outgrew the limit in the middle of a physical line.
var errPartialLine = errors.New("partial line")

// record is one CSV record as split, or the reason it could not be split.
type record struct {
	line   int // physical line the record starts on, 1-based
	fields []string
	err    error
	crlf   bool // the record ended with \r\n
}

// splitter cuts UTF-8 text into RFC 4180 records, one at a time, never holding more than one record
// (bounded by maxBytes). It is lenient where that cannot merge rows: a bare quote inside an unquoted field
// is a character, and a quoted field followed by other text on the same line is read literally. A quoted
// field that spans lines and closes with text after the quote makes one bad record ending on that line.
// A quoted field that never closes (end of input, or the record outgrows maxBytes) is reported bad on its
// first line only and the lines after it are read again, so one stray quote cannot swallow the rest of a
// file. The replayed bytes are budgeted to keep the worst case linear in the input size.
type splitter struct {
	src      *bufio.Reader
	replay   []byte // lines of an abandoned record, read again before src
	comma    byte
	maxBytes int
	budget   int // bytes that may still be replayed; grows with every byte read from src
	line     int // physical lines consumed
	lenient  int // quotes read as text because they broke the rules, for delimiter sniffing

	raw      []byte // the current record as read
	firstEnd int    // offset in raw where the record's first physical line ends; 0 while unknown
	buf      []byte // unescaped field contents
	ends     []int  // end offset in buf of each finished field
}

const replayAllowance = 16 << 20

func newSplitter(src *bufio.Reader, comma byte, maxBytes int) *splitter {
	return &splitter{src: src, comma: comma, maxBytes: maxBytes, budget: replayAllowance}
}

// Parser states.
const (
	sFieldStart = iota
	sUnquoted
	sQuoted
	sQuote   // a '"' inside a quoted field: the closing one or the first of a doubled pair
	sQuoteCR // a closing '"' followed by '\r'
)

// next returns the next record; io.EOF when the input is exhausted. Other errors are read failures.
func (s *splitter) next() (record, error) {
	s.raw, s.buf, s.ends, s.firstEnd = s.raw[:0], s.buf[:0], s.ends[:0], 0
	rec := record{line: s.line + 1}
	state, fieldRaw, fieldBuf, multiline := sFieldStart, 0, 0, false
	literalTo := 0 // a '"' opening a field before this offset is text: the line is being read again
	for {
		from := len(s.raw)
		err := s.appendLine()
		if err != nil && err != io.EOF && err != errPartialLine {
			return record{}, err
		}
		if s.firstEnd == 0 && err != errPartialLine {
			s.firstEnd = len(s.raw)
		}
		if err == io.EOF && len(s.raw) == 0 {
			return record{}, io.EOF
		}
		if len(s.raw) > s.maxBytes {
			rec.err = rowTooLongError{s.maxBytes}
			if s.firstEnd == 0 || s.firstEnd == len(s.raw) {
				if err == errPartialLine {
					return rec, s.skipLine()
				}
				return rec, nil
			}
			rec.fields = literalFields(s.raw[:s.firstEnd], s.comma)
			return rec, s.requeue(&rec, err == errPartialLine)
		}
	scan:
		for i := from; i < len(s.raw); i++ {
			c := s.raw[i]
			switch state {
			case sFieldStart:
				switch c {
				case '"':
					if i < literalTo {
						s.buf = append(s.buf, c)
						state = sUnquoted
						break
					}
					state, fieldRaw, multiline = sQuoted, i, false
				case s.comma:
					s.ends = append(s.ends, len(s.buf))
					fieldBuf = len(s.buf)
				case '\n':
					return s.finish(rec, fieldBuf), nil
				default:
					s.buf = append(s.buf, c)
					state = sUnquoted
				}
			case sUnquoted:
				switch c {
				case s.comma:
					s.ends = append(s.ends, len(s.buf))
					fieldBuf, state = len(s.buf), sFieldStart
				case '\n':
					return s.finish(rec, fieldBuf), nil
				default:
					s.buf = append(s.buf, c)
				}
			case sQuoted:
				switch c {
				case '"':
					state = sQuote
				case '\n':
					if n := len(s.buf); n > fieldBuf && s.buf[n-1] == '\r' {
						s.buf = s.buf[:n-1]
					}
					s.buf = append(s.buf, '\n')
					multiline = true
				default:
					s.buf = append(s.buf, c)
				}
			case sQuote, sQuoteCR:
				switch {
				case c == '"' && state == sQuote:
					s.buf = append(s.buf, '"')
					state = sQuoted
				case c == s.comma && state == sQuote:
					s.ends = append(s.ends, len(s.buf))
					fieldBuf, state = len(s.buf), sFieldStart
				case c == '\n':
					return s.finish(rec, len(s.buf)), nil
				case c == '\r' && state == sQuote:
					state = sQuoteCR
				case multiline:
					// The field did close, so the record most likely ends on this line; it is one bad
					// row. Reading its later lines again would import fragments of it as rows.
					rec.err = errMalformedQuote
					rec.fields = literalFields(s.raw, s.comma)
					rec.crlf = bytes.HasSuffix(s.raw, []byte("\r\n"))
					return rec, nil
				default:
					// `"abc" def` on one line: the quotes were text, not quoting. Read the line again
					// from that quote up to here with quotes as text, so that delimiters split it.
					s.buf = append(s.buf[:fieldBuf], '"')
					state, literalTo, i = sUnquoted, i, fieldRaw
					s.lenient++
				}
			}
		}
		if err != io.EOF {
			continue
		}
		switch {
		case state == sQuoted && multiline:
			rec.err = errUnterminated
			rec.fields = literalFields(s.raw[:s.firstEnd], s.comma)
			return rec, s.requeue(&rec, false)
		case state == sQuoted:
			// `a,"b,c` at the very end: the quote was text, as above.
			s.buf = append(s.buf[:fieldBuf], '"')
			state, literalTo, from = sUnquoted, len(s.raw), fieldRaw+1
			s.lenient++
			goto scan
		}
		if state == sQuote || state == sQuoteCR {
			// The last field was quoted and closed: a '\r' in buf was inside the quotes, not a line end.
			return s.finish(rec, len(s.buf)), nil
		}
		return s.finish(rec, fieldBuf), nil
	}
}

// finish closes the last field; fieldBuf is where that field starts in buf, for a trailing '\r'.
func (s *splitter) finish(rec record, fieldBuf int) record {
	if n := len(s.buf); n > fieldBuf && s.buf[n-1] == '\r' {
		s.buf = s.buf[:n-1]
	}
	s.ends = append(s.ends, len(s.buf))
	all := string(s.buf)
	rec.fields = make([]string, len(s.ends))
	start := 0
	for i, end := range s.ends {
		rec.fields[i] = all[start:end]
		start = end
	}
	rec.crlf = bytes.HasSuffix(s.raw, []byte("\r\n"))
	return rec
}

// appendLine appends the next physical line, with its '\n', to raw. It returns io.EOF when the input
// ended (the line may still have bytes) and errPartialLine when raw outgrew maxBytes mid-line.
func (s *splitter) appendLine() error {
	start := len(s.raw)
	for {
		var chunk []byte
		var err error
		if len(s.replay) > 0 {
			if i := bytes.IndexByte(s.replay, '\n'); i >= 0 {
				chunk, s.replay = s.replay[:i+1], s.replay[i+1:]
			} else {
				chunk, s.replay, err = s.replay, nil, bufio.ErrBufferFull
			}
		} else {
			chunk, err = s.src.ReadSlice('\n')
			s.budget += len(chunk)
		}
		s.raw = append(s.raw, chunk...)
		switch err {
		case nil:
			s.line++
			return nil
		case bufio.ErrBufferFull:
			if len(s.raw) > s.maxBytes {
				return errPartialLine
			}
		case io.EOF:
			if len(s.raw) > start {
				s.line++
			}
			return io.EOF
		default:
			return err
		}
	}
}

// requeue puts every line of the abandoned record after its first back in front of the input, so they
// are read again as records of their own. partial says the last of them is still being read from src.
func (s *splitter) requeue(rec *record, partial bool) error {
	rest := s.raw[s.firstEnd:]
	if len(rest) > s.budget {
		// Out of budget: the swallowed lines stay part of this bad record.
		if partial {
			return s.skipLine()
		}
		return nil
	}
	s.budget -= len(rest)
	replay := make([]byte, 0, len(rest)+len(s.replay))
	s.replay = append(append(replay, rest...), s.replay...)
	s.line = rec.line
	return nil
}

// skipLine discards the rest of the current physical line.
func (s *splitter) skipLine() error {
	if len(s.replay) > 0 {
		if i := bytes.IndexByte(s.replay, '\n'); i >= 0 {
			s.replay = s.replay[i+1:]
			s.line++
			return nil
		}
		s.replay = nil
	}
	for {
		_, err := s.src.ReadSlice('\n')
		switch err {
		case nil, io.EOF:
			s.line++
			return nil
		case bufio.ErrBufferFull:
		default:
			return err
		}
	}
}

// literalFields splits the text of a bad record on the delimiter with quotes taken as text: the columns
// it shows in the errors file.
func literalFields(line []byte, comma byte) []string {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	parts := bytes.Split(line, []byte{comma})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

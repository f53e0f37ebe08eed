package email

import (
	"bufio"
	"encoding/base64"
	"errors"
	"io"
	"math"
	"mime/quotedprintable"
	"strings"
	"sync"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// The parser reads MIME entities itself rather than through message.Read, message.New and
// message.MultipartReader, which allocate a 4 KiB bufio.Reader per message and another inside each
// quoted-printable decoder, and parse each Content-Type twice: those buffers alone were a third of everything
// the parser allocated, and so of its garbage collection. Here each entity's buffer comes from a pool, the
// quoted-printable decoder reuses it (bufio.NewReader returns a reader that already is a large enough
// bufio.Reader), and the Content-Type is parsed once. Every entity is read to the end, or abandoned, before
// its release, so the buffer can go back to the pool then. The decoding is message.New's.

// maxHeaderBytes bounds one header block, as message.Read does.
const maxHeaderBytes = 1 << 20

var errHeaderTooBig = errors.New("message: header exceeds maximum size")

var bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// pooledReader returns a buffered reader over r; give it back with releaseReader once r is no longer read.
func pooledReader(r io.Reader) *bufio.Reader {
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

func releaseReader(br *bufio.Reader) {
	br.Reset(nil) // keep neither the message's bytes nor its reader alive in the pool
	bufPool.Put(br)
}

// entity is a message or a MIME part: its header, its Content-Type and its decoded body.
type entity struct {
	header    message.Header
	mediaType string            // as message.Header.ContentType returns it: the raw value when it does not parse
	params    map[string]string // nil when the Content-Type does not parse
	typeErr   error
	body      io.Reader // transfer encoding and charset decoded
}

// newEntity decodes body as message.New does: the transfer encoding unless multipart, the charset of text
// parts; an unknown encoding or charset leaves the body as it is.
func newEntity(h message.Header, body io.Reader) *entity {
	e := &entity{header: h}
	e.mediaType, e.params, e.typeErr = h.ContentType()
	if !strings.HasPrefix(e.mediaType, "multipart/") {
		switch strings.ToLower(h.Get("Content-Transfer-Encoding")) {
		case "quoted-printable":
			body = quotedprintable.NewReader(body)
		case "base64":
			body = base64.NewDecoder(base64.StdEncoding, spacesToNewlines{body})
		}
	}
	if strings.HasPrefix(e.mediaType, "text/") {
		if cs, ok := e.params["charset"]; ok {
			switch cs = strings.ToLower(cs); {
			case cs == "utf-8" || cs == "us-ascii":
			case message.CharsetReader != nil:
				if r, err := message.CharsetReader(cs, body); err == nil {
					body = r
				}
			}
		}
	}
	e.body = body
	return e
}

// spacesToNewlines turns spaces and tabs into newlines, which the base64 decoder skips: some senders indent
// base64 lines (go-message does the same).
type spacesToNewlines struct{ r io.Reader }

func (s spacesToNewlines) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for i, c := range p[:n] {
		if c == ' ' || c == '\t' {
			p[i] = '\n'
		}
	}
	return n, err
}

// headerLimit is message.Read's limit on the header block, lifted once the header has been read.
type headerLimit struct {
	r io.Reader
	n int64
}

func (l *headerLimit) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errHeaderTooBig
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// readEntity reads a header block and the body after it, like message.Read. done releases the buffer and
// must be called once the body is no longer read.
func readEntity(r io.Reader) (e *entity, done func(), err error) {
	lim := &headerLimit{r: r, n: maxHeaderBytes}
	br := pooledReader(lim)
	h, err := textproto.ReadHeader(br)
	if err != nil {
		releaseReader(br)
		return nil, nil, err
	}
	lim.n = math.MaxInt64
	return newEntity(message.Header{Header: h}, br), func() { releaseReader(br) }, nil
}

// partReader walks the parts of a multipart body, like message.MultipartReader, with pooled buffers.
type partReader struct {
	mr  *textproto.MultipartReader
	buf *bufio.Reader // the current part's, if any
}

func newPartReader(body io.Reader, boundary string) *partReader {
	return &partReader{mr: textproto.NewMultipartReader(body, boundary)}
}

// next returns the next part; the previous one may no longer be read.
func (p *partReader) next() (*entity, error) {
	p.close()
	part, err := p.mr.NextPart()
	if err != nil {
		return nil, err
	}
	p.buf = pooledReader(part)
	return newEntity(message.Header{Header: part.Header}, p.buf), nil
}

// close gives back the current part's buffer.
func (p *partReader) close() {
	if p.buf != nil {
		releaseReader(p.buf)
		p.buf = nil
	}
}

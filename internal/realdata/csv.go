package realdata

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"time"
)

// CSVHeader is the header row of CSV; its names are ones the importer recognises without a mapping.
var CSVHeader = []string{"Title", "Description", "Email", "Name", "Created", "ID", "Tags"}

// CSV returns rows rows of g as a CSV file (header first), generated as they are read, so a file of any
// size costs no memory. Tags are separated by ';'.
func CSV(g *Gen, rows int) io.Reader {
	r := &csvReader{g: g, left: rows}
	r.w = csv.NewWriter(&r.buf)
	r.w.UseCRLF = true
	r.w.Write(CSVHeader)
	return r
}

type csvReader struct {
	g    *Gen
	left int
	buf  bytes.Buffer
	w    *csv.Writer
}

func (r *csvReader) Read(p []byte) (int, error) {
	for r.buf.Len() < len(p) && r.left > 0 {
		row := r.g.Next()
		r.left--
		r.w.Write([]string{row.Title, row.Description, row.Email, row.Name, row.Created.Format(time.RFC3339),
			row.ExternalID, strings.Join(row.Tags, ";")})
		r.w.Flush()
	}
	if r.buf.Len() == 0 {
		return 0, io.EOF
	}
	return r.buf.Read(p)
}

package csvimport

import (
	"context"
	"io"
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/realdata"
)

// BenchmarkImportReal is BenchmarkImport over a file of a real export's shape (realdata.DefaultShape: most
// rows a new customer, Zipf-spread company domains beside free mail, varied text, tags on a third of the
// rows), with the workspace's tags created first so that the rows' tags are kept. Besides the rates and
// their ratio to the raw floor it reports the rate of each tenth of the rows, and the last tenth's rate
// over the first's, so that a rate that falls as the store grows shows.
//
//	go test ./connectors/csvimport -run '^$' -bench ImportReal/postgres -benchtime 1x -bench-rows 1000000
func BenchmarkImportReal(b *testing.B) {
	shape := realdata.DefaultShape
	b.Logf("data set: %s", shape)
	data := benchData{
		file: func() io.Reader { return realdata.CSV(realdata.New(shape), *benchRows) },
		raw: func() func() rawRow {
			g := realdata.New(shape)
			return func() rawRow {
				r := g.Next()
				return rawRow{r.Title, r.Description, r.Email, "csv:cli:" + r.ExternalID, r.Created}
			}
		},
		setup: func(b *testing.B, st core.Store, ws core.ID) {
			if _, err := st.PutLookups(context.Background(), ws, core.LookupTag, shape.TagLabels()); err != nil {
				b.Fatal(err)
			}
		},
	}
	b.Run("sqlite", func(b *testing.B) { benchImport(b, "sqlite", data) })
	b.Run("postgres", func(b *testing.B) { benchImport(b, "postgres", data) })
}

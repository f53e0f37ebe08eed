package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/feedbridge/feedbridge/store/storetest"
)

// BenchmarkErasure erases one customer's records while another workspace writes beside it (see
// storetest.BenchErasure for what it reports); FEEDBRIDGE_BENCH_ERASURE_RECORDS sizes it (default 10,000).
//
//	go test -run '^$' -bench '^BenchmarkErasure$' -benchtime 1x ./store/sqlite/
func BenchmarkErasure(b *testing.B) {
	st, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	storetest.BenchErasure(b, st)
}

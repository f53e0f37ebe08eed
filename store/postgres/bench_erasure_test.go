package postgres_test

import (
	"testing"

	"github.com/feedbridge/feedbridge/store/postgres/pgtest"
	"github.com/feedbridge/feedbridge/store/storetest"
)

// BenchmarkErasure erases one customer's records while another workspace writes beside it (see
// storetest.BenchErasure for what it reports); FEEDBRIDGE_BENCH_ERASURE_RECORDS sizes it (default 10,000).
//
//	FEEDBRIDGE_TEST_POSTGRES_URL=... go test -run '^$' -bench '^BenchmarkErasure$' -benchtime 1x ./store/postgres/
func BenchmarkErasure(b *testing.B) {
	storetest.BenchErasure(b, pgtest.Open(b))
}

package storetest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
)

// ErasureRecordsEnv sizes BenchErasure: the erased customer's records (default 10,000, the size the
// erasure target is set at).
const ErasureRecordsEnv = "FEEDBRIDGE_BENCH_ERASURE_RECORDS"

// BenchErasure is every store's BenchmarkErasure, run on st (fresh and migrated). Each iteration files one
// customer's records in a new workspace through the bulk path (the conformance test's records: her name
// and address in every text, an email-shaped dedup key each), then erases her with core.Service.ForgetContact
// while another workspace writes single records beside it (one 5 ms after the previous answer), and then
// lets that workspace write alone for as long as the erasure took, at least a second.
//
// It reports:
//   - erasure-s: the erasure's wall time, and fill-s, the time of writing the same records (index included);
//   - ratio: records erased per second ÷ records written per second, the same records in the same run. A
//     busy machine slows both, so the ratio says what the erasure costs against the store's own write
//     path where erasure-s alone cannot tell the erasure's cost from the machine's load. The fill runs
//     without the other workspace's writes; the erasure with them, since making way for them is part of
//     what it must do;
//   - during-p99-ms, during-worst-ms, during-writes: the other workspace's writes during the erasure, and
//     alone-p99-ms, alone-worst-ms: the same writer without it. The alone phase comes after the erasure so
//     that it can last as long (the worst of a longer phase is the worst of more writes); anything the
//     erasure leaves the store to do afterwards falls into it and makes the baseline slower, never faster;
//   - wait-p99-ratio: during-p99-ms ÷ alone-p99-ms (the p99 rather than the worst, which is one write);
//   - process-cpu-s: the process's CPU time during the erasure. With SQLite that is the erasure's work
//     itself, whatever the machine's load; with PostgreSQL only the client's share of it.
//
// With more than one iteration the times are the mean per erasure and the waits are pooled.
func BenchErasure(b *testing.B, st core.Store) {
	n := eraseScale
	if v := os.Getenv(ErasureRecordsEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("%s=%q: want a positive number", ErasureRecordsEnv, v)
		}
	}
	ctx := b.Context()
	svc := core.NewService(st, core.Options{})
	other, err := svc.CreateWorkspace(ctx, "other", core.PlanPro, 0)
	if err != nil {
		b.Fatal(err)
	}
	var fill, erase, cpu time.Duration
	var during, alone []time.Duration
	runs := 0
	for b.Loop() {
		runs++
		ws, err := svc.CreateWorkspace(ctx, fmt.Sprintf("erased-%d", runs), core.PlanPro, 0)
		if err != nil {
			b.Fatal(err)
		}
		began := time.Now()
		if err := fillCustomer(ctx, svc, st, ws.ID, n); err != nil {
			b.Fatal(err)
		}
		fill += time.Since(began)
		w := startOtherWrites(ctx, svc, other.ID)
		cpu0 := testkit.ProcessCPU()
		began = time.Now()
		got, err := svc.ForgetContact(ctx, ws.ID, janeEmail)
		took := time.Since(began)
		cpu += testkit.ProcessCPU() - cpu0
		erase += took
		during = append(during, w.phase()...)
		time.Sleep(max(took, time.Second))
		a, werr := w.stop()
		alone = append(alone, a...)
		if err != nil {
			b.Fatal(err)
		}
		if werr != nil {
			b.Fatal(werr)
		}
		if want := (core.Forgotten{Records: n, Contacts: 1}); got != want {
			b.Fatalf("forgotten %+v, want %+v", got, want)
		}
	}
	if len(during) == 0 || len(alone) == 0 {
		b.Fatalf("the other workspace wrote %d records during the erasures and %d alone: nothing to compare", len(during), len(alone))
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(runs) }
	b.ReportMetric(per(erase), "erasure-s")
	b.ReportMetric(per(fill), "fill-s")
	b.ReportMetric(fill.Seconds()/erase.Seconds(), "ratio")
	b.ReportMetric(per(cpu), "process-cpu-s")
	dp99, dworst := tail(during)
	ap99, aworst := tail(alone)
	b.ReportMetric(ms(dp99), "during-p99-ms")
	b.ReportMetric(ms(dworst), "during-worst-ms")
	b.ReportMetric(float64(len(during))/float64(runs), "during-writes")
	b.ReportMetric(ms(ap99), "alone-p99-ms")
	b.ReportMetric(ms(aworst), "alone-worst-ms")
	b.ReportMetric(ms(dp99)/max(ms(ap99), 0.001), "wait-p99-ratio")
	b.Logf("erased %d records %d time(s); the other workspace's writes: during the erasure %s, alone %s",
		n, runs, summarize(during), summarize(alone))
}

// tail returns the 99th percentile and the worst of some waits.
func tail(waits []time.Duration) (p99, worst time.Duration) {
	w := slices.Clone(waits)
	slices.Sort(w)
	return w[len(w)*99/100], w[len(w)-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

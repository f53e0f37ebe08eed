package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// BenchmarkEventPages counts what an event costs the store from end to end in figures that do not depend on
// the machine's load: the log pages (WAL frames) written per 1,000 events on the queue's tables and indexes
// (and free pages) while the events are written by creates (beyond what the same creates write there without a subscriber:
// their insight jobs), claimed (claims of up to 200) and finished (50 per write). Every frame of the log
// is attributed to the table or index whose page it holds. Creates run one at a time (serial) and from 4
// goroutines at once (concurrent: the writer's group commit shares a commit's pages between them). It also
// reports all frames per create in each arm, and the process CPU per create in each arm, the background
// work the creates caused included.
func BenchmarkEventPages(b *testing.B) {
	for _, clients := range []int{1, 4} {
		b.Run(map[int]string{1: "serial", 4: "concurrent"}[clients], func(b *testing.B) {
			ctx := context.Background()
			st, svc, plain, subbed := openSubscribed(b, "pages.db")
			q := core.EventQueue("bench")
			n := 0
			create := func(ws core.ID, count int) {
				var wg sync.WaitGroup
				for c := range clients {
					wg.Go(func() {
						for i := c; i < count; i += clients {
							k := n + i
							if _, err := svc.Submit(ctx, ws, core.Submission{Type: core.RecordFeedback, Title: "Export is slow",
								Description:   "The CSV export times out after 30 seconds on large workspaces.",
								CustomerEmail: fmt.Sprintf("u%d@c%d.com", k%5000, k%500)}); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				n += count
			}
			// settle does the background work a chunk of creates caused (the full-text drain), so that it is
			// counted with the chunk.
			settle := func() {
				if err := st.FlushIndex(ctx); err != nil {
					b.Fatal(err)
				}
			}
			// frames counts the log's frames on the queue's tables and indexes and in all, then checkpoints the
			// log and starts it over. Chunks are small enough that no other checkpoint runs between two calls.
			frames := func() (queue, all int64) {
				settle()
				owner := map[uint32]string{}
				rows, err := st.ck.QueryContext(ctx, `SELECT pageno, name FROM dbstat`)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					var p uint32
					var name string
					if err := rows.Scan(&p, &name); err != nil {
						b.Fatal(err)
					}
					owner[p] = name
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				wal, err := os.ReadFile(st.path + "-wal")
				if err != nil {
					b.Fatal(err)
				}
				if len(wal) >= 32 {
					size := int(binary.BigEndian.Uint32(wal[8:12]))
					for off := 32; off+24+size <= len(wal); off += 24 + size {
						all++
						// A page on no b-tree is free: the deletes of a queue's rows free pages.
						if name := owner[binary.BigEndian.Uint32(wal[off:off+4])]; name == "" || strings.HasPrefix(name, "queue_") ||
							strings.HasPrefix(name, "sqlite_autoindex_queue_") {
							queue++
						}
					}
				}
				var busy, log, done int64
				if err := st.ck.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil || busy != 0 {
					b.Fatalf("checkpoint: busy %d, %v", busy, err)
				}
				return queue, all
			}
			cpu := func() time.Duration {
				var ru syscall.Rusage
				if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
					b.Fatal(err)
				}
				return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			}
			const chunk = 20
			var (
				queueF, allF   [2]int64
				writeCPU       [2]time.Duration
				events         int
				claimF, finish int64
			)
			create(plain.ID, chunk) // warm-up
			frames()
			for b.Loop() {
				for range 5 {
					for arm, ws := range []core.ID{plain.ID, subbed.ID} {
						c0 := cpu()
						create(ws, chunk)
						settle()
						writeCPU[arm] += cpu() - c0
						qf, af := frames()
						queueF[arm] += qf
						allF[arm] += af
					}
				}
				events += 5 * chunk
				// Claim and finish what this round wrote.
				for {
					its, err := st.ClaimItems(ctx, q, "w", 200, time.Minute)
					if err != nil {
						b.Fatal(err)
					}
					qf, _ := frames()
					claimF += qf
					if len(its) == 0 {
						break
					}
					for len(its) > 0 {
						k := min(50, len(its))
						done, err := st.FinishItems(ctx, its[:k], "w")
						if err != nil || len(done) != k || !done[0] {
							b.Fatalf("finish: %v, %v", done, err)
						}
						its = its[k:]
					}
					qf, _ = frames()
					finish += qf
				}
			}
			per := func(f int64) float64 { return float64(f) * 1000 / float64(events) }
			b.ReportMetric(per(queueF[1]-queueF[0]), "write-frames/1k-events")
			b.ReportMetric(per(claimF), "claim-frames/1k-events")
			b.ReportMetric(per(finish), "finish-frames/1k-events")
			b.ReportMetric(per(queueF[1]-queueF[0]+claimF+finish), "total-frames/1k-events")
			b.ReportMetric(per(allF[0])/1000, "frames/create-without")
			b.ReportMetric(per(allF[1])/1000, "frames/create-with")
			b.ReportMetric(float64(writeCPU[0].Microseconds())/float64(events), "cpu-µs/create-without")
			b.ReportMetric(float64(writeCPU[1].Microseconds())/float64(events), "cpu-µs/create-with")
		})
	}
}

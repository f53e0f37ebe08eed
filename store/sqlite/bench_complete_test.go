package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
	"github.com/feedbridge/feedbridge/internal/realdata"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// BenchmarkCompleteInsightJobs measures what the insight pool's write of a batch of finished jobs costs
// the process: feedbacks of a real export's shape are queued and claimed, the builtin extractor runs on
// them, and only the CompleteInsightJobs call is charged (cpu-µs/job, this process's CPU, which holds
// SQLite), for batches as small as a busy pool writes them and as large as a deep queue allows.
//
//	go test -run '^$' -bench CompleteInsightJobs ./store/sqlite/
func BenchmarkCompleteInsightJobs(b *testing.B) {
	for _, batch := range []int{4, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			ctx := context.Background()
			st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "c.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			svc := core.NewService(st, core.Options{})
			ws, err := svc.CreateWorkspace(ctx, "Bench", core.PlanBusiness, 0)
			if err != nil {
				b.Fatal(err)
			}
			gen, ex := realdata.New(realdata.DefaultShape), insights.NewBuiltin(0)
			var cpu time.Duration
			jobs := 0
			for b.Loop() {
				subs := make([]core.Submission, batch)
				for i := range subs {
					r := gen.Next()
					subs[i] = core.Submission{Type: core.RecordFeedback, Title: r.Title, Description: r.Description,
						CustomerEmail: r.Email, CustomerName: r.Name}
				}
				if _, err := svc.SubmitBatch(ctx, ws.ID, subs); err != nil {
					b.Fatal(err)
				}
				claimed, err := st.ClaimInsightJobs(ctx, "w", batch, time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				results := make([]core.JobResult, len(claimed))
				for i, j := range claimed {
					rec, err := st.Record(ctx, ws.ID, j.RecordID)
					if err != nil {
						b.Fatal(err)
					}
					got, err := ex.Extract(ctx, insights.Input{Title: rec.Title, Text: rec.Description})
					if err != nil {
						b.Fatal(err)
					}
					results[i].Job = j
					for _, in := range got {
						results[i].Insights = append(results[i].Insights, core.Insight{ID: core.NewID(), Workspace: ws.ID,
							RecordID: j.RecordID, Kind: in.Kind, Summary: in.Summary, Quote: in.Quote, Sentiment: in.Sentiment,
							SentimentScore: in.Score, Themes: in.Themes, Tags: in.Tags, Extractor: ex.Name(), CreatedAt: time.Now()})
					}
				}
				c0 := testkit.ProcessCPU()
				if _, err := st.CompleteInsightJobs(ctx, "w", results); err != nil {
					b.Fatal(err)
				}
				cpu += testkit.ProcessCPU() - c0
				jobs += len(claimed)
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(jobs), "cpu-µs/job")
		})
	}
}

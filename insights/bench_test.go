package insights

import (
	"context"
	"testing"
)

// sampleFeedbacks are realistic feedback descriptions of typical length (a few sentences to a short e-mail).
var sampleFeedbacks = []string{
	"Hi team,\n\nThe CSV export has been broken since last week's update: files over 5k rows just time out. " +
		"We rely on it for the monthly board report, so this is urgent for us. It would also be great if the " +
		"export kept our column order.\n\nThanks,\nMaria",
	"Love the new dashboard, it's so much faster! One thing though: can you add a dark mode to the mobile app? " +
		"My eyes hurt at night.",
	"How do I connect a second Gmail inbox? The docs only mention one account per workspace.",
	"We were charged twice for March and support hasn't answered in four days. Honestly this is frustrating. " +
		"Please refund the duplicate charge and let us know what happened.",
	"Our sales reps love the Salesforce sync. The only gap is that custom fields on opportunities are not " +
		"synced, which forces them to copy values by hand. Any plans to support custom fields? " +
		"Also, the activity timeline freezes when a deal has more than 200 notes.",
	"- SSO with Okta\n- audit log for permission changes\n- bulk edit of tags\n\nThose three would make the " +
		"product a no-brainer for our security team.",
	"The mobile app crashes every time I open a board with attachments. I'm on iOS 18 with the latest version. " +
		"I reinstalled it twice, same thing. Is anyone else seeing this?",
	"Really impressed with the onboarding, our whole team was up and running in an afternoon. Kudos to whoever " +
		"wrote the setup guide. Would love a Zapier integration next!",
}

// BenchmarkBuiltin measures extraction throughput on one goroutine; feedbacks/s is the figure to watch
// (target ≥ 2,000 on one core: go test -bench Builtin -cpu 1).
func BenchmarkBuiltin(b *testing.B) {
	ex := NewBuiltin(0)
	in := Input{Title: "Feedback", Tags: []string{"Mobile App", "Billing", "SSO", "Dark Mode", "Export", "Integrations",
		"Salesforce", "Onboarding", "Performance", "Security"}}
	ctx := context.Background()
	bytes := 0
	for _, s := range sampleFeedbacks {
		bytes += len(s)
	}
	b.SetBytes(int64(bytes / len(sampleFeedbacks)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Text = sampleFeedbacks[i%len(sampleFeedbacks)]
		if _, err := ex.Extract(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "feedbacks/s")
}

package email

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/internal/testkit"
)

// benchTemplates are the shapes of mail the benchmark ingests: forwards of every client, direct mail in
// several charsets, HTML-only mail.
var benchTemplates = []string{
	"gmail_forward", "outlook_desktop_forward", "outlook_de_forward", "outlook_web_forward", "apple_mail_forward",
	"thunderbird_forward", "rfc822_attachment", "direct_plain", "gmail_reply_quoted", "charset_windows1252",
	"html_only", "outlook_web_html_only",
}

var messageIDLine = regexp.MustCompile(`(?im)^message-id:[^\n]*\n`)

// benchMessages makes n distinct messages (each with its own Message-ID) from the templates.
func benchMessages(b *testing.B, n int) [][]byte {
	tmpl := corpus(b, benchTemplates...)
	out := make([][]byte, n)
	for i := range out {
		raw := messageIDLine.ReplaceAll(tmpl[i%len(tmpl)], nil)
		out[i] = append([]byte(fmt.Sprintf("Message-ID: <bench-%d-%s@example.net>\r\n", i, randomHex(4))), raw...)
	}
	return out
}

// BenchmarkIngest ingests N messages (FEEDBRIDGE_BENCH_MESSAGES, default 2000) from Dovecot when
// FEEDBRIDGE_TEST_IMAP_ADDR is set, else from the memory server, into a SQLite store, and reports messages/s
// beside the raw rate of the same IMAP client fetching the same messages without processing them, measured
// in the same run. Run with -benchtime=1x. Both arms run with the garbage collector set as `feedbridge serve`
// sets it (daemonGCPercent in cli/serve.go: 200 unless GOGC is set), so the figures are the daemon's.
// Handled messages are flagged \Seen, the default (processed_mailbox empty); FEEDBRIDGE_BENCH_MOVE=1 moves
// them to a processed mailbox instead, which costs the server more.
func BenchmarkIngest(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("FEEDBRIDGE_BENCH_MESSAGES")); err == nil && v > 0 {
		n = v
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(daemonGCPercent))
	}
	for b.Loop() {
		b.StopTimer()
		tg := benchTarget(b)
		msgs := benchMessages(b, n)
		tg.create(b, tg.box("Feedback"))
		b.Cleanup(func() { tg.removeAll(b) })
		appendMany(b, tg, tg.box("Feedback"), msgs)

		// The first reader of freshly delivered mail pays the server's one-time work (Dovecot moves new/ to
		// cur/ and fills its index cache); a first, untimed raw fetch takes that, so both timed arms read the
		// mailbox in the same state.
		coldStart := time.Now()
		if got := rawFetch(b, tg, tg.box("Feedback")); got != n {
			b.Fatalf("raw fetch read %d messages, want %d", got, n)
		}
		cold := time.Since(coldStart)
		rawStart, rawCPU, rawMachine := time.Now(), testkit.ProcessCPU(), machineCPU()
		if got := rawFetch(b, tg, tg.box("Feedback")); got != n {
			b.Fatalf("raw fetch read %d messages, want %d", got, n)
		}
		raw := time.Since(rawStart)
		rawCPU, rawMachine = testkit.ProcessCPU()-rawCPU, machineCPU()-rawMachine

		fx := newFixture(b)
		processed := ""
		if os.Getenv("FEEDBRIDGE_BENCH_MOVE") != "" {
			processed = tg.box("Processed")
		}
		s := fx.build(b, fx.entryConfig(tg, map[string]any{"poll_interval": "1h", "processed_mailbox": processed}))
		s.entries[0].Log.Logger.SetLevel(logrus.InfoLevel) // the daemon's default; the tests log at debug
		// The delivered messages and the raw fetches' garbage are gone by now; without a collection here the
		// heap goal they set would let the ingest's heap grow far past what it needs, hiding its peak and
		// part of its collector's work.
		runtime.GC()
		var peak atomic.Uint64
		stopSampling := sampleHeap(&peak)
		stopProfile := profileIngest(b)
		cpuStart, gcStart, allocStart, machineStart := testkit.ProcessCPU(), gcCPU(), heapAllocs(), machineCPU()
		ingestStart := time.Now()
		b.StartTimer()
		stop := run(b, s)
		// The entry's counter itself: gathering the whole registry 200 times a second cost the run itself.
		for testutil.ToFloat64(s.entries[0].m.created) < float64(n) {
			time.Sleep(5 * time.Millisecond)
		}
		// The store indexes full-text entries a moment after their commit; that work is the ingest's too.
		if err := fx.store.FlushIndex(context.Background()); err != nil {
			b.Fatal(err)
		}
		ingest := time.Since(ingestStart)
		cpu, gc, allocs, machine := testkit.ProcessCPU()-cpuStart, gcCPU()-gcStart, heapAllocs()-allocStart, machineCPU()-machineStart
		b.StopTimer()
		stopProfile()
		stop()
		stopSampling()

		rawRate, ingestRate := float64(n)/raw.Seconds(), float64(n)/ingest.Seconds()
		b.ReportMetric(ingestRate, "ingest-msgs/s")
		b.ReportMetric(rawRate, "raw-fetch-msgs/s")
		b.ReportMetric(ingestRate/rawRate, "ratio")
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
		// CPU per message of this process while it ingests (the server's is not counted), and the collector's
		// share of it: steadier than the rates on a shared machine.
		b.ReportMetric(float64(cpu.Microseconds())/float64(n), "ingest-cpu-us/msg")
		b.ReportMetric(gc.Seconds()*1e6/float64(n), "gc-cpu-us/msg")
		b.ReportMetric(float64(allocs)/float64(n), "alloc-B/msg") // what the collector has to reclaim
		if machine > 0 {
			// The rest of the machine's CPU, per message: on a quiet machine, the IMAP server's. With both
			// arms' figures, what ingesting costs the server beyond serving the fetches (flags or moves).
			b.ReportMetric(float64((machine-cpu).Microseconds())/float64(n), "server-cpu-us/msg")
			b.ReportMetric(float64((rawMachine-rawCPU).Microseconds())/float64(n), "raw-server-cpu-us/msg")
			b.ReportMetric(float64(rawCPU.Microseconds())/float64(n), "raw-cpu-us/msg")
			b.ReportMetric(machine.Seconds()/ingest.Seconds(), "busy-cores") // of runtime.NumCPU()
		}
		b.Logf("%s: %d messages; raw fetch %v (%.0f/s; the first, untimed, %v), ingest %v (%.0f/s), ratio %.2f, peak heap %.1f MB, ingest CPU %v (GC %v)",
			tg.name, n, raw.Round(time.Millisecond), rawRate, cold.Round(time.Millisecond), ingest.Round(time.Millisecond),
			ingestRate, ingestRate/rawRate, float64(peak.Load())/(1<<20), cpu.Round(time.Millisecond), gc.Round(time.Millisecond))
		b.StartTimer()
	}
}

// heapAllocs is how many bytes the process has allocated on the heap so far.
func heapAllocs() uint64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// gcCPU is the runtime's estimate of the CPU time its garbage collector has used so far.
func gcCPU() time.Duration {
	s := []rtmetrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// profileIngest profiles the timed ingest alone (-cpuprofile and -memprofile would also hold the delivery
// and the raw fetches); the profiles of the last run are kept. FEEDBRIDGE_BENCH_CPUPROFILE names a CPU
// profile; FEEDBRIDGE_BENCH_MEMPROFILE a heap profile taken after the ingest, with one taken before it
// beside it (".before"), for `go tool pprof -sample_index=alloc_space -diff_base`.
func profileIngest(b *testing.B) func() {
	cpuPath, memPath := os.Getenv("FEEDBRIDGE_BENCH_CPUPROFILE"), os.Getenv("FEEDBRIDGE_BENCH_MEMPROFILE")
	writeHeap := func(path string) {
		if path == "" {
			return
		}
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			b.Fatal(err)
		}
	}
	if memPath != "" {
		runtime.GC() // the heap profile shows allocations as of the last collection
		writeHeap(memPath + ".before")
	}
	var cpu *os.File
	if cpuPath != "" {
		var err error
		if cpu, err = os.Create(cpuPath); err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			b.Fatal(err)
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if memPath != "" {
			runtime.GC()
			writeHeap(memPath)
		}
	}
}

// daemonGCPercent mirrors the constant of the same name in cli/serve.go, which this package cannot import.
const daemonGCPercent = 200

func benchTarget(b *testing.B) *imapTarget {
	if addr := os.Getenv("FEEDBRIDGE_TEST_IMAP_ADDR"); addr != "" {
		return &imapTarget{name: "dovecot", addr: addr, prefix: "b" + randomHex(4) + "-",
			user: os.Getenv("FEEDBRIDGE_TEST_IMAP_USER"), pass: os.Getenv("FEEDBRIDGE_TEST_IMAP_PASS")}
	}
	return startMemServer(b, memOptions{})
}

// appendMany delivers messages over one connection.
func appendMany(b *testing.B, tg *imapTarget, mailbox string, msgs [][]byte) {
	tg.appendRaw(b, mailbox, msgs...)
}

// rawFetch is the baseline: the same client, the same batches of UID FETCH BODY.PEEK[], nothing done with
// the bytes.
func rawFetch(b *testing.B, tg *imapTarget, mailbox string) int {
	c := tg.client(b)
	if _, err := c.Select(mailbox, nil).Wait(); err != nil {
		b.Fatal(err)
	}
	data, err := c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
	if err != nil {
		b.Fatal(err)
	}
	uids := data.AllUIDs()
	count := 0
	for len(uids) > 0 {
		k := min(batchSize, len(uids))
		cmd := c.Fetch(imap.UIDSetNum(uids[:k]...), &imap.FetchOptions{UID: true, InternalDate: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}})
		for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
			for item := msg.Next(); item != nil; item = msg.Next() {
				if body, ok := item.(imapclient.FetchItemDataBodySection); ok {
					io.Copy(io.Discard, body.Literal)
				}
			}
			count++
		}
		if err := cmd.Close(); err != nil {
			b.Fatal(err)
		}
		uids = uids[k:]
	}
	return count
}

// sampleHeap records the largest in-use heap (HeapInuse: object spans' bytes, live or not yet swept, plus
// their free slots) every 10 ms until the returned func is called. It reads runtime/metrics, which unlike
// runtime.ReadMemStats does not stop the world, so the sampling does not slow what it measures.
func sampleHeap(peak *atomic.Uint64) func() {
	done := make(chan struct{})
	go func() {
		samples := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			rtmetrics.Read(samples)
			if inuse := samples[0].Value.Uint64() + samples[1].Value.Uint64(); inuse > peak.Load() {
				peak.Store(inuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}

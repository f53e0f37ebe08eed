package connectortest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// killChildEnv carries a childSpec (JSON) to the child process of the kill -9 trial.
const killChildEnv = "CONNECTORTEST_KILL_CHILD"

// killHolder is the lease identity of every process of the trial: a child restarted with the identity
// the killed one had takes the entry's lease back at once, instead of waiting for it to run out.
const killHolder = "conformance-kill"

// killItems is how many items the trial delivers; kills is how many times it kills a child that reads
// its input itself.
const (
	killItems = 6
	kills     = 2
)

// childSpec is what a child process of the trial runs: one entry of a kind on the trial's SQLite file.
type childSpec struct {
	DB    string         `json:"db"`
	Kind  string         `json:"kind"`
	Entry map[string]any `json:"entry"`
}

// runChild runs the entry until the parent kills it (or a minute passes, should the parent be gone). A
// kind that serves HTTP listens on a loopback port, announced as "listening <url>"; "ready" follows
// once the entry runs.
func runChild(t *testing.T, raw string) {
	var spec childSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := sqlite.Open(ctx, spec.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := core.NewService(st, core.Options{})
	set, mux := build(t, spec.Kind, spec.Entry, connectors.Env{Service: svc, Holder: killHolder, Now: time.Now})
	if mux != nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		fmt.Printf("listening http://%s\n", ln.Addr())
	}
	fmt.Println("ready")
	_ = set.Run(ctx)
}

// killTrial is one run of the trial: a store shared with the child processes, and the child running now.
type killTrial struct {
	t    *testing.T
	test string // the top-level test the children run
	spec string
	live *Live
	cmd  *exec.Cmd
}

// testKill runs the entry in a child process, kills it with SIGKILL while it works on a handful of
// items, starts it again on the same SQLite file and expects each item stored exactly once. A kind that
// reads its input itself is killed as soon as new records appear, up to twice (once when it stores them
// all in one transaction); the input it had not finished is read again after the restart. A kind that answers its sender is killed while requests are
// in flight: every acknowledged item must be stored, and the sender's resend of every item, answered
// or not, must store the missing ones and duplicate none.
func testKill(t *testing.T, c Case, test string) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	db := filepath.Join(t.TempDir(), "fb.db")
	live := openWorkspace(t, db, core.Options{})
	feed := c.Feed(t, live.Workspace, t.TempDir())
	spec, err := json.Marshal(childSpec{DB: db, Kind: c.Kind, Entry: feed.Entry})
	if err != nil {
		t.Fatal(err)
	}
	k := &killTrial{t: t, test: test, spec: string(spec), live: live}
	t.Cleanup(k.stop)
	k.start()
	its := items("Kill", killItems)
	if k.live.URL != "" {
		k.answering(feed, its)
	} else {
		k.reading(feed, its)
	}
	// A kind reads its inputs in order: once one sent after the restart is stored, whatever the killed
	// process left half done has been read again.
	last := items("After the kills", 1)
	acked(t, feed.Deliver(t, k.live, last, 0), 1, "delivery after the kills")
	waitStored(t, k.live, last, "the delivery after the kills")
	exactlyOnce(t, k.live, append(its, last...))
}

// reading is the trial of a kind that reads its input itself.
func (k *killTrial) reading(feed Feed, its []Item) {
	feed.Deliver(k.t, k.live, its, 0)
	for i := range kills {
		before := stored(listRecords(k.t, k.live), its)
		if before == len(its) {
			break
		}
		waitUntil(k.t, "records from the child", func() bool {
			return stored(listRecords(k.t, k.live), its) > before
		})
		testkit.Kill9(k.t, k.cmd)
		k.t.Logf("kill %d: %d of %d items were stored", i+1, stored(listRecords(k.t, k.live), its), len(its))
		k.start()
	}
	waitStored(k.t, k.live, its, "every item after the restarts")
}

// answering is the trial of a kind that answers its sender: half the items are acknowledged, the rest
// are sent one after another while the child is killed.
func (k *killTrial) answering(feed Feed, its []Item) {
	half := len(its) / 2
	acked(k.t, feed.Deliver(k.t, k.live, its[:half], 0), half, "before the kill")
	l := *k.live // the sender keeps the address of the process it was talking to
	rest := make(chan Answer, len(its)-half)
	go func() {
		defer close(rest)
		for _, it := range its[half:] {
			for _, a := range feed.Deliver(k.t, &l, []Item{it}, 0) {
				rest <- a
			}
		}
	}()
	// Killed right after an answer, the process is most likely reading or saving the next request.
	late := []Answer{<-rest}
	time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
	testkit.Kill9(k.t, k.cmd)
	for a := range rest {
		late = append(late, a)
	}
	if len(late) != len(its)-half {
		k.t.Fatalf("%d answers for %d items", len(late), len(its)-half)
	}
	saved := byTitle(listRecords(k.t, k.live))
	n := 0
	for i, it := range its {
		if i >= half && !late[i-half].Saved {
			continue
		}
		n++
		if len(saved[it.Title]) != 1 {
			k.t.Errorf("%q was acknowledged but is stored %d times after the kill", it.Title, len(saved[it.Title]))
		}
	}
	k.t.Logf("%d of %d items acknowledged before the kill, %d stored", n, len(its), stored(listRecords(k.t, k.live), its))
	k.start()
	acked(k.t, feed.Deliver(k.t, k.live, its, 1), len(its), "resend after the restart")
}

// start runs a child on the trial's store and waits until its entry runs.
func (k *killTrial) start() {
	k.t.Helper()
	cmd, out := testkit.StartChild(k.t, k.test, killChildEnv, k.spec, testkit.Stdout)
	k.cmd = cmd
	sc := bufio.NewScanner(out)
	var said []string
	ready := false
	for !ready && sc.Scan() {
		line := sc.Text()
		said = append(said, line)
		if u, ok := strings.CutPrefix(line, "listening "); ok {
			k.live.URL = u
		}
		ready = line == "ready"
	}
	if !ready {
		_ = cmd.Wait()
		k.t.Fatalf("the child process ended before its entry ran:\n%s", strings.Join(said, "\n"))
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
}

// stop kills the child still running when the trial ends.
func (k *killTrial) stop() {
	if k.cmd != nil && k.cmd.ProcessState == nil {
		testkit.Kill9(k.t, k.cmd)
	}
}

package email

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// killChildEnv carries "db path|workspace|addr|user|pass|mailbox prefix" to the child of TestKillMidIngest.
const killChildEnv = "EMAIL_KILL_CHILD"

// killHolder is the lease identity of every process of the test: a replica restarted with the identity it
// had takes its lease back at once, instead of waiting for the dead one's lease to run out.
const killHolder = "kill-test-replica"

// TestKillMidIngest kills an ingesting process with SIGKILL at random moments while it reads 200 messages,
// restarts it each time, and expects every message to be exactly one record and to end up moved.
func TestKillMidIngest(t *testing.T) {
	if spec, child := testkit.ChildSpec(killChildEnv); child {
		killChild(t, spec)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	eachServer(t, func(t *testing.T, tg *imapTarget) {
		const n = 200
		fx := newFixture(t)
		fx.holder = killHolder
		box := tg.box("Feedback")
		tg.create(t, box)
		msgs := make([][]byte, n)
		for i := range msgs {
			msgs[i] = simpleMessage(i, "kill-"+tg.prefix)
		}
		tg.appendRaw(t, box, msgs...)

		seed := uint64(time.Now().UnixNano())
		rng := rand.New(rand.NewPCG(seed, 0))
		spec := strings.Join([]string{fx.store.Path(), string(fx.ws), tg.addr, tg.user, tg.pass, tg.prefix}, "|")
		kills := 0
		for kills < 8 && len(tg.messages(t, box)) > 0 {
			cmd, _ := testkit.StartChild(t, "TestKillMidIngest", killChildEnv, spec, testkit.NoPipe)
			time.Sleep(time.Duration(30+rng.IntN(250)) * time.Millisecond)
			testkit.Kill9(t, cmd)
			kills++
		}
		t.Logf("seed %d: %d kills, %d records and %d messages left before the last run", seed, kills, len(fx.records(t)), len(tg.messages(t, box)))

		run(t, fx.build(t, fx.entryConfig(tg, nil)))
		waitFor(t, 30*time.Second, "every message recorded and moved", func() bool {
			return len(fx.records(t)) == n && len(tg.messages(t, box)) == 0
		})
		if got := len(tg.messages(t, tg.box("Processed"))); got != n {
			t.Errorf("%d messages in the processed mailbox, want %d", got, n)
		}
		seen := map[string]bool{}
		for _, r := range fx.records(t) {
			if seen[r.Title+r.CustomerEmail] {
				t.Errorf("record %q of %s exists twice", r.Title, r.CustomerEmail)
			}
			seen[r.Title+r.CustomerEmail] = true
		}
	})
}

// killChild ingests until it is killed (or gives up after a minute, should the parent be gone).
func killChild(t *testing.T, spec string) {
	p := strings.Split(spec, "|")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := sqlite.Open(ctx, p[0])
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{svc: core.NewService(st, core.Options{}), store: st, ws: core.ID(p[1]), reg: prometheus.NewRegistry(),
		logs: &syncBuffer{}, holder: killHolder}
	tg := &imapTarget{addr: p[2], user: p[3], pass: p[4], prefix: p[5]}
	s := fx.build(t, fx.entryConfig(tg, nil))
	// Many small commits and moves, so that kills land between a commit and its move as well.
	s.entries[0].batch, s.entries[0].disposeEvery = 5, 15
	fmt.Println("child ingesting")
	s.Run(ctx)
}

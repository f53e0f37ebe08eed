package fairshare

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestRotation(t *testing.T) {
	keys := []string{"a", "b", "c", "d"}
	next := func(after string) (string, error) {
		for _, k := range keys {
			if k > after {
				return k, nil
			}
		}
		return "", nil
	}
	for _, c := range []struct {
		cursor string
		k      int
		want   []string
	}{
		{"", 2, []string{"a", "b"}},
		{"b", 3, []string{"c", "d", "a"}},
		{"d", 9, []string{"a", "b", "c", "d"}},
		{"c", 9, []string{"d", "a", "b", "c"}},
		{"zz", 1, []string{"a"}},
	} {
		got, err := Rotation(c.cursor, c.k, next)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Rotation(%q, %d) = %v, %v; want %v", c.cursor, c.k, got, err, c.want)
		}
	}
	none, err := Rotation("b", 3, func(string) (string, error) { return "", nil })
	if err != nil || len(none) != 0 {
		t.Errorf("empty rotation: %v, %v", none, err)
	}
	boom := errors.New("boom")
	if _, err := Rotation("", 3, func(string) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Errorf("want the lookup's error, got %v", err)
	}
}

func TestInterleave(t *testing.T) {
	lists := [][]string{{"a1", "a2", "a3", "a4"}, {"b1"}, {"c1", "c2"}}
	for n, want := range map[int][]string{
		1:  {"a1"},
		3:  {"a1", "b1", "c1"},
		5:  {"a1", "b1", "c1", "a2", "c2"},
		10: {"a1", "b1", "c1", "a2", "c2", "a3", "a4"},
	} {
		if got := Interleave(lists, n); !slices.Equal(got, want) {
			t.Errorf("Interleave(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestGate(t *testing.T) {
	g := NewGate(1, 0, 0)
	ctx := context.Background()
	leaveA, err := g.Enter(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	leaveB, err := g.Enter(ctx, "b")
	if err != nil {
		t.Fatalf("another key waits on a: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second holder of a: want it to wait until its deadline, got %v", err)
	}
	entered := make(chan func())
	go func() {
		leave, err := g.Enter(ctx, "a")
		if err != nil {
			t.Error(err)
		}
		entered <- leave
	}()
	leaveA()
	leaveA() // giving back twice frees one place only
	(<-entered)()
	leaveB()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.slots) != 0 {
		t.Fatalf("slots left after every holder left: %v", g.slots)
	}
}

func TestCap(t *testing.T) {
	ctx, cancel := Cap(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	err := Err(ctx, ctx.Err())
	if !errors.Is(err, ErrTooLong) {
		t.Fatalf("a capped query: got %v", err)
	}
	caller, stop := context.WithTimeout(context.Background(), time.Millisecond)
	defer stop()
	ctx2, cancel2 := Cap(caller, time.Hour)
	defer cancel2()
	<-ctx2.Done()
	if err := Err(ctx2, ctx2.Err()); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTooLong) {
		t.Fatalf("the caller's own deadline: got %v", err)
	}
}

// TestGateRests: after a hold of some length the place stays taken for rest times that length beyond the
// free part; a hold shorter than the free part leaves the place free at once.
func TestGateRests(t *testing.T) {
	g := NewGate(1, 1, 20*time.Millisecond)
	ctx := context.Background()
	leave, err := g.Enter(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	leave()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("right after a 100 ms hold: want the place still resting, got %v", err)
	}
	if _, err := g.Enter(ctx, "b"); err != nil {
		t.Fatalf("another key rests too: %v", err)
	}
	later, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	again, err := g.Enter(later, "a")
	if err != nil {
		t.Fatalf("after the rest: %v", err)
	}
	again()

	quick, err := g.Enter(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	quick() // held for far less than the free part
	right, cancel3 := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel3()
	next, err := g.Enter(right, "c")
	if err != nil {
		t.Fatalf("right after a quick hold: want the place free, got %v", err)
	}
	next()
}

// TestSearchGateKeepsAReaderForTheIdle: with two readers, two workspaces that search without pause share
// one of them, and a third workspace's search takes the other at once. Before the fix the gate bounded
// each workspace alone, so the two busy ones held both readers and the third queued behind them.
func TestSearchGateKeepsAReaderForTheIdle(t *testing.T) {
	g := NewSearchGate(2)
	g.rest, g.free = 0, time.Millisecond // a hold of a few ms marks a workspace busy, with no rest
	ctx := context.Background()
	for _, k := range []string{"busy-a", "busy-b"} {
		leave, err := g.Enter(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		leave()
	}
	holdA, err := g.Enter(ctx, "busy-a")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(short, "busy-b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second busy workspace took the last reader: %v", err)
	}
	quick, cancel2 := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel2()
	holdC, err := g.Enter(quick, "idle-c")
	if err != nil {
		t.Fatalf("a workspace that holds none waited for the busy ones: %v", err)
	}
	// Both readers are taken now: even an idle workspace waits, and gets one as soon as one is free.
	short2, cancel3 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel3()
	if _, err := g.Enter(short2, "idle-d"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third holder with two readers: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		leave, err := g.Enter(ctx, "busy-b")
		if err == nil {
			leave()
		}
		got <- err
	}()
	holdC()
	select {
	case err := <-got:
		t.Fatalf("busy-b took the reader kept for the idle while busy-a holds one: %v", err)
	case <-time.After(30 * time.Millisecond):
	}
	holdA()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("busy-b never got a reader after busy-a left")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.active != 0 {
		t.Fatalf("%d readers counted as held after every holder left", g.active)
	}
}

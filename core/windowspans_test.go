package core

import "testing"

// Every window, before and after the epoch, is covered exactly once, in order, by aligned spans, and a
// long window needs few of them.
func TestWindowSpans(t *testing.T) {
	for from := int64(-200); from < 200; from += 7 {
		for length := int64(1); length <= 366; length += 13 {
			to := from + length - 1
			lengths, firsts := WindowSpans(from, to)
			next := from
			for i, l := range lengths {
				if firsts[i] != next {
					t.Fatalf("[%d, %d]: span %d starts on %d, want %d", from, to, i, firsts[i], next)
				}
				if l > 1 && ((firsts[i]%l)+l)%l != 0 {
					t.Fatalf("[%d, %d]: span of %d days starts on %d, not a multiple", from, to, l, firsts[i])
				}
				next += l
			}
			if next != to+1 {
				t.Fatalf("[%d, %d]: spans end before %d", from, to, next)
			}
			if len(lengths) > 3*2*3+int(length/64)+1 {
				t.Fatalf("[%d, %d]: %d spans", from, to, len(lengths))
			}
		}
	}
	if l, f := WindowSpans(5, 4); len(l) != 0 || len(f) != 0 {
		t.Fatalf("an empty window has spans: %v %v", l, f)
	}
}

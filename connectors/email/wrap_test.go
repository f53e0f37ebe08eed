package email

import "testing"

// TestWrappedHeaderValues: a line between two fields of a forwarded block goes on with the value above it,
// unless it is itself a field whose label no entry knows, which is passed over; text below the last field
// is the body, never part of the subject.
func TestWrappedHeaderValues(t *testing.T) {
	tests := []struct {
		name, body, from, subject string
	}{
		{"wrapped subject", "From: J <j@a.com>\nDate: x\nSubject: a long\nsubject\nTo: <b@c.d>\n\nbody",
			"j@a.com", "a long subject"},
		{"unknown label between fields", "From: J <j@a.com>\nSubject: s\nPriorität: hoch\nDate: x\n\nbody",
			"j@a.com", "s"},
		{"body right below the block", "From: J <j@a.com>\nDate: x\nSubject: s\nbody text\n\nmore",
			"j@a.com", "s"},
		{"sender's address on the next line", "From: Jane Doe\n<j@a.com>\nDate: x\nSubject: s\n\nbody",
			"j@a.com", "s"},
		{"subject first, wrapped twice", "Subject: one\ntwo\nthree\nFrom: J <j@a.com>\nDate: x\n\nbody",
			"j@a.com", "one two three"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, hops, ok := findForwards("note\n\n---------- Forwarded message ---------\n"+tc.body, true)
			if !ok || len(hops) != 1 {
				t.Fatalf("found %v, %d hops", ok, len(hops))
			}
			if hops[0].from.email != tc.from || hops[0].subject != tc.subject {
				t.Errorf("from %q subject %q, want %q %q", hops[0].from.email, hops[0].subject, tc.from, tc.subject)
			}
		})
	}
}

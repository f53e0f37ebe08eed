package sqlite

import (
	"context"
	"strconv"
	"time"
)

// writerIdle is how long the writer goes without beginning a transaction before it lets go of its memory
// map of the database file (releaseMap); maintain looks twice as often.
const writerIdle = 2 * time.Second

// releaseMap unmaps the writer's view of the database file once the writer has begun no transaction for
// s.mapIdle and has used its map since it last let go of it. The pages the writer touched through the map
// count in the daemon's resident memory for as long as they stay mapped, up to writerMapBytes after a
// burst of writes, though an idle writer reads none of them. The map's size stays as it was: setting it to
// 0 unmaps the file, and setting it back makes the writer's next transaction map the file again, lazily,
// touching only the pages that transaction reads through it. A write holding the writer skips the turn.
func (s *Store) releaseMap() {
	if !s.writerMapped.Load() || time.Since(time.Unix(0, s.writerBegan.Load())) < time.Duration(s.mapIdle.Load()) {
		return
	}
	select {
	case s.lead <- struct{}{}:
	default:
		return
	}
	defer func() { <-s.lead }()
	ctx, cancel := context.WithTimeout(context.Background(), s.busy)
	defer cancel()
	if _, err := s.w.ExecContext(ctx, `PRAGMA mmap_size = 0`); err != nil {
		return
	}
	// A failure here leaves the writer reading with system calls until the next turn sets the size again.
	if _, err := s.w.ExecContext(ctx, `PRAGMA mmap_size = `+strconv.Itoa(writerMapBytes)); err == nil {
		s.writerMapped.Store(false)
	}
}

package email

import (
	"io"
	"sync"

	"github.com/emersion/go-imap/v2"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/internal/recovery"
)

// parsePool parses fetched messages on a few goroutines while the fetcher goes on reading the connection.
// The raw bytes read but not yet parsed stay within rawBudget: the fetcher waits for room before reading a
// message (a message larger than the budget waits until nothing else is held).
type parsePool struct {
	parser *Parser
	log    *logrus.Entry
	tasks  chan parseTask
	wg     sync.WaitGroup
	mu     sync.Mutex
	room   *sync.Cond
	held   int // raw bytes read and not yet parsed
}

type parseTask struct {
	dst  *fetched
	raw  []byte
	done *sync.WaitGroup
}

func newParsePool(parser *Parser, workers int, log *logrus.Entry) *parsePool {
	// The queue lets the fetcher read a batch ahead of the workers; rawBudget, not its length, bounds memory.
	p := &parsePool{parser: parser, log: log, tasks: make(chan parseTask, batchSize)}
	p.room = sync.NewCond(&p.mu)
	for range max(workers, 1) {
		p.wg.Go(p.work)
	}
	return p
}

func (p *parsePool) work() {
	for t := range p.tasks {
		t.dst.msg, t.dst.err = p.parseGuarded(t.raw)
		p.release(t.raw)
		recycle(t.raw) // Parse keeps nothing of raw: everything it returns is copied out
		t.done.Done()
	}
}

// parseGuarded runs the parser on one message. A panic on some unforeseen message fails only that message, which
// is set aside like any other that cannot be parsed.
func (p *parsePool) parseGuarded(raw []byte) (msg Message, err error) {
	defer recovery.Guard(p.log, "email: parse", &err)
	return p.parser.Parse(raw)
}

// rawBufs holds the raw buffers of parsed messages for the next ones read, sparing the collector a buffer
// per message.
var rawBufs sync.Pool

// maxPooledRaw is the largest raw buffer kept for reuse; larger messages are rare and get their own.
const maxPooledRaw = 256 << 10

// rawBuffer returns a buffer of length n, reused when one large enough is at hand.
func rawBuffer(n int) []byte {
	if b, ok := rawBufs.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n, (n+4095)&^4095) // rounded up, so that it fits more of the messages after it
}

func recycle(raw []byte) {
	if c := cap(raw); c > 0 && c <= maxPooledRaw {
		rawBufs.Put(&raw)
	}
}

// read reads one message body of at most maxMessageBytes (the rest, attachments in practice, is dropped).
func (p *parsePool) read(lit imap.LiteralReader) ([]byte, error) {
	n := int(min(max(lit.Size(), 0), maxMessageBytes))
	p.mu.Lock()
	for p.held > 0 && p.held+n > rawBudget {
		p.room.Wait()
	}
	p.held += n
	p.mu.Unlock()
	raw := rawBuffer(n)
	if _, err := io.ReadFull(lit, raw); err != nil {
		p.release(raw)
		return nil, err
	}
	return raw, nil
}

// parse parses raw into dst on a worker; done is marked when it has.
func (p *parsePool) parse(dst *fetched, raw []byte, done *sync.WaitGroup) {
	done.Add(1)
	p.tasks <- parseTask{dst: dst, raw: raw, done: done}
}

// release gives back the budget of raw, which was read by read.
func (p *parsePool) release(raw []byte) {
	if len(raw) == 0 {
		return
	}
	p.mu.Lock()
	p.held -= len(raw)
	p.mu.Unlock()
	p.room.Broadcast()
}

// close stops the workers once they have parsed everything handed to them.
func (p *parsePool) close() {
	close(p.tasks)
	p.wg.Wait()
}

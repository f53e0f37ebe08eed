package daemon

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/config"
)

// The HTTP listener holds at most max_connections client connections: one more is not served until one of
// them closes.
func TestListenCapsConnections(t *testing.T) {
	ln, err := listen(config.HTTP{Listen: "127.0.0.1:0", MaxConnections: 2})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })}
	go srv.Serve(ln)
	defer srv.Close()

	// get sends one request on a new connection and reports whether it was answered within d.
	get := func(d time.Duration) (net.Conn, bool) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(d))
		if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			return c, false
		}
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return c, false
		}
		res.Body.Close()
		c.SetDeadline(time.Time{})
		return c, true
	}
	first, ok1 := get(5 * time.Second)
	second, ok2 := get(5 * time.Second)
	if !ok1 || !ok2 {
		t.Fatal("the first two connections were not served")
	}
	third, ok := get(300 * time.Millisecond)
	third.Close()
	if ok {
		t.Fatal("a third connection was served while two were open")
	}
	first.Close()
	fourth, ok := get(5 * time.Second)
	if !ok {
		t.Error("no connection served after one closed")
	}
	fourth.Close()
	second.Close()
}

package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRawSocket: over unix and TCP sockets, a write much larger than the
// socket's buffers arrives whole through reads of every size (both sides
// wait in the poller when the socket is full or empty), the peer's close
// is io.EOF, a deadline and the socket's own Close end a waiting read
// with the net package's errors; what is not a socket is left as it is.
func TestRawSocket(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = filepath.Join(t.TempDir(), "s")
			}
			l, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := l.Accept()
				if err != nil {
					t.Error(err)
				}
				accepted <- c
			}()
			dialled, err := net.Dial(network, l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			w, r := rawSocket(network, dialled), rawSocket(network, <-accepted)
			for _, c := range []net.Conn{w, r} {
				if _, ok := c.(*rawStream); !ok {
					t.Fatalf("%T: not read with raw system calls", c)
				}
			}
			data := make([]byte, 8<<20)
			for i := range data {
				data[i] = byte(i * 7 / 5)
			}
			wrote := make(chan error, 1)
			go func() {
				n, err := w.Write(data)
				if err == nil && n != len(data) {
					err = io.ErrShortWrite
				}
				wrote <- err
			}()
			got := make([]byte, 0, len(data))
			buf := make([]byte, 1<<20)
			for size := 1; len(got) < len(data); size = size*3%len(buf) + 1 {
				n, err := r.Read(buf[:min(size, len(data)-len(got))])
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, buf[:n]...)
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("the bytes read are not those written")
			}

			if err := r.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("read past its deadline: %v", err)
			}
			time.AfterFunc(10*time.Millisecond, func() { w.Close() })
			_, err = w.Read(buf)
			var oe *net.OpError
			if !errors.Is(err, net.ErrClosed) || !errors.As(err, &oe) || oe.Op != "read" || oe.Net != network {
				t.Errorf("read of a socket closed meanwhile: %v", err)
			}
			if _, err := w.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
				t.Errorf("write of a closed socket: %v", err)
			}
			r.SetReadDeadline(time.Time{})
			if n, err := r.Read(buf); n != 0 || err != io.EOF {
				t.Errorf("read after the peer closed: %d, %v", n, err)
			}
			r.Close()
		})
	}
	p, q := net.Pipe()
	defer q.Close()
	if c := rawSocket("pipe", p); c != p {
		t.Errorf("net.Pipe made %T", c)
	}
}

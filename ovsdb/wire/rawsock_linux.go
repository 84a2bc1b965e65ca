package wire

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// rawStream is a non-blocking socket read and written with raw system
// calls: the poller still waits when the socket has nothing to read or no
// room to write (the function given to the socket's RawConn says so), but
// the calls themselves bypass the scheduler's system-call bookkeeping.
// That bookkeeping wakes Go's sysmon thread whenever the process comes out
// of idleness with a system call, and sysmon then polls every 20 µs for
// as long as a processor is busy: a northd idle between changes paid that
// on every message in or out (~0.3 ms of a change's ~1.9 ms at 5k ports,
// BenchmarkLiveChange). A read or write of a non-blocking socket never
// waits in the kernel, so it does not need the bookkeeping, which is
// there to hand a blocked thread's processor over.
type rawStream struct {
	net.Conn
	rc syscall.RawConn
	// network is the Dial network's name, for errors.
	network          string
	reading, writing rawOp
}

// rawOp is the read or the write in progress on a rawStream, for the
// function given to its RawConn (a method value made once: a closure per
// call would be an allocation per message).
type rawOp struct {
	mu    sync.Mutex
	buf   []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

// rawSocket is nc, dialled on network, read and written with raw system
// calls when it is a non-blocking socket (as the net package makes them),
// nc itself otherwise: a blocking descriptor would stall the thread inside
// a raw call with its processor held.
func rawSocket(network string, nc net.Conn) net.Conn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nc
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nc
	}
	nonBlocking := false
	if err := rc.Control(func(fd uintptr) {
		flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonBlocking = errno == 0 && flags&syscall.O_NONBLOCK != 0
	}); err != nil || !nonBlocking {
		return nc
	}
	s := &rawStream{Conn: nc, rc: rc, network: network}
	s.reading.fn, s.writing.fn = s.reading.readOnce, s.writing.writeAll
	return s
}

func (s *rawStream) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := s.run(&s.reading, "read", b)
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

func (s *rawStream) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	return s.run(&s.writing, "write", b)
}

// run reads or writes b (op is s.reading or s.writing, named name),
// waiting in the poller as op's function asks.
func (s *rawStream) run(op *rawOp, name string, b []byte) (int, error) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.buf, op.n, op.errno = b, 0, 0
	var err error
	if op == &s.writing {
		err = s.rc.Write(op.fn)
	} else {
		err = s.rc.Read(op.fn)
	}
	op.buf = nil
	switch {
	case err != nil:
		// RawConn's errors say "raw-read" and "raw-write": as the net
		// package's own Read and Write, they say "read" and "write".
		if oe, ok := err.(*net.OpError); ok {
			err = oe.Err
		}
	case op.errno != 0:
		err = os.NewSyscallError(name, op.errno)
	default:
		return op.n, nil
	}
	return op.n, &net.OpError{Op: name, Net: s.network, Source: s.LocalAddr(), Addr: s.RemoteAddr(), Err: err}
}

// readOnce reads once into buf; false sends the caller to the poller.
func (op *rawOp) readOnce(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(op.buf))), uintptr(len(op.buf)))
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			op.n = int(n)
		default:
			op.errno = errno
		}
		return true
	}
}

// writeAll writes what is left of buf; false, when the socket is full,
// sends the caller to the poller.
func (op *rawOp) writeAll(fd uintptr) bool {
	for op.n < len(op.buf) {
		rest := op.buf[op.n:]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch errno {
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		case 0:
			op.n += int(n)
		default:
			op.errno = errno
			return true
		}
	}
	return true
}

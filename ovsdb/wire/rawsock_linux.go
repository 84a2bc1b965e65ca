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
// on every message in or out, ~0.4 ms a change. A read or write of a
// non-blocking socket never waits in the kernel, so it does not need the
// bookkeeping, which is there to hand a blocked thread's processor over.
type rawStream struct {
	net.Conn
	rc syscall.RawConn
	// network is the Dial network's name, for errors.
	network string

	// The state of the read and the write in progress, for the
	// functions given to rc (method values made once: a closure per call
	// would be an allocation per message).
	readMu  sync.Mutex
	rbuf    []byte
	rn      int
	rerr    syscall.Errno
	readFn  func(fd uintptr) bool
	writeMu sync.Mutex
	wbuf    []byte
	wn      int
	werr    syscall.Errno
	writeFn func(fd uintptr) bool
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
	s.readFn, s.writeFn = s.readOnce, s.writeSome
	return s
}

func (s *rawStream) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	s.readMu.Lock()
	defer s.readMu.Unlock()
	s.rbuf, s.rn, s.rerr = b, 0, 0
	err := s.rc.Read(s.readFn)
	s.rbuf = nil
	switch {
	case err != nil:
		return 0, s.opError("read", err)
	case s.rerr != 0:
		return 0, s.opError("read", os.NewSyscallError("read", s.rerr))
	case s.rn == 0:
		return 0, io.EOF
	}
	return s.rn, nil
}

// readOnce reads once into rbuf; false sends the caller to the poller.
func (s *rawStream) readOnce(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(s.rbuf))), uintptr(len(s.rbuf)))
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			s.rn = int(n)
		default:
			s.rerr = errno
		}
		return true
	}
}

func (s *rawStream) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.wbuf, s.wn, s.werr = b, 0, 0
	err := s.rc.Write(s.writeFn)
	s.wbuf = nil
	switch {
	case err != nil:
		return s.wn, s.opError("write", err)
	case s.werr != 0:
		return s.wn, s.opError("write", os.NewSyscallError("write", s.werr))
	}
	return s.wn, nil
}

// writeSome writes what is left of wbuf; false, when the socket is full,
// sends the caller to the poller.
func (s *rawStream) writeSome(fd uintptr) bool {
	for s.wn < len(s.wbuf) {
		rest := s.wbuf[s.wn:]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch errno {
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		case 0:
			s.wn += int(n)
		default:
			s.werr = errno
			return true
		}
	}
	return true
}

// opError describes err as the net package's own Read and Write do
// (RawConn's say "raw-read", "raw-write").
func (s *rawStream) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: s.network, Source: s.LocalAddr(), Addr: s.RemoteAddr(), Err: err}
}

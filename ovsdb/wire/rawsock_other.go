//go:build !linux

package wire

import "net"

// rawSocket is nc: raw system calls on sockets (rawsock_linux.go) are
// Linux's only.
func rawSocket(_ string, nc net.Conn) net.Conn { return nc }

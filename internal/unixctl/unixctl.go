// Package unixctl is the server side of Open vSwitch's control socket, the
// one ovs-appctl and ovn-appctl talk to: JSON-RPC 1.0 over a unix socket,
// where a request's method is a command name, its params the command's
// arguments as strings, and the reply's result (or error) a string.
//
// Commands are registered with Register; list-commands, help and version
// are built in. Replies follow lib/unixctl.c: a non-empty reply text gets a
// final newline if it has none, and an unknown command or a wrong number of
// arguments is answered with OVS's error texts.
package unixctl

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Handler runs one command; args are the arguments after the command name.
// It returns the reply text, or an error whose text is the reply error.
type Handler func(args []string) (string, error)

// command is a registered command.
type command struct {
	usage    string
	min, max int
	run      Handler
}

// Server is a control socket and its commands.
type Server struct {
	ln      net.Listener
	path    string
	log     *slog.Logger
	version string

	mu       sync.Mutex
	commands map[string]command
	conns    map[net.Conn]bool
	closed   bool
	wg       sync.WaitGroup
}

// Listen creates the control socket at path (an existing socket file there
// is replaced, as OVS does) and serves it until Close. version is what the
// version command answers.
func Listen(path, version string, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("%s: could not initialize control socket: %w", path, err)
	}
	s := &Server{ln: ln, path: path, log: log, version: version,
		commands: map[string]command{}, conns: map[net.Conn]bool{}}
	s.Register("list-commands", "", 0, 0, s.listCommands)
	s.Register("help", "", 0, 0, s.listCommands)
	s.Register("version", "", 0, 0, func([]string) (string, error) { return s.version, nil })
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's file name.
func (s *Server) Path() string { return s.path }

// Register adds command name, which takes from min to max arguments; usage
// describes them in list-commands. A command registered again replaces the
// earlier one.
func (s *Server) Register(name, usage string, min, max int, run Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commands[name] = command{usage: usage, min: min, max: max, run: run}
}

// Close stops listening, removes the socket file and ends the connections
// once their command in progress has replied (such as "exit"'s): only
// their reads are cut short.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.SetReadDeadline(time.Now())
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) listCommands([]string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString("The available commands are:\n")
	for _, name := range slices.Sorted(maps.Keys(s.commands)) {
		fmt.Fprintf(&b, "  %-23s %s\n", name, s.commands[name].usage)
	}
	return b.String(), nil
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c)
	}
}

// request is a JSON-RPC 1.0 request; reply its answer.
type request struct {
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
	ID     json.RawMessage   `json:"id"`
}

type reply struct {
	Result *string         `json:"result"`
	Error  *string         `json:"error"`
	ID     json.RawMessage `json:"id"`
}

// serve answers one connection's requests in order, one at a time.
func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	dec := json.NewDecoder(c)
	enc := json.NewEncoder(c)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if !errors.Is(err, net.ErrClosed) && err.Error() != "EOF" {
				s.log.Debug("control connection ended", "err", err)
			}
			return
		}
		if req.ID == nil || string(req.ID) == "null" {
			// A notification, or a reply: unixctl expects neither.
			s.log.Warn("control connection: received unexpected message", "method", req.Method)
			return
		}
		text, err := s.run(req)
		rep := reply{ID: req.ID}
		if err != nil {
			text = withNewline(err.Error())
			rep.Error = &text
		} else {
			text = withNewline(text)
			rep.Result = &text
		}
		s.log.Debug("replying", "method", req.Method, "success", err == nil, "reply", text)
		if err := enc.Encode(rep); err != nil {
			return
		}
	}
}

// run checks a request against its command and runs it.
func (s *Server) run(req request) (string, error) {
	s.mu.Lock()
	cmd, ok := s.commands[req.Method]
	s.mu.Unlock()
	switch {
	case !ok:
		return "", fmt.Errorf("%q is not a valid command (use \"list-commands\" to see a list of valid commands)", req.Method)
	case len(req.Params) < cmd.min:
		return "", fmt.Errorf("%q command requires at least %d arguments", req.Method, cmd.min)
	case len(req.Params) > cmd.max:
		return "", fmt.Errorf("%q command takes at most %d arguments", req.Method, cmd.max)
	}
	args := make([]string, len(req.Params))
	for i, p := range req.Params {
		if err := json.Unmarshal(p, &args[i]); err != nil {
			return "", fmt.Errorf("%q command has non-string argument", req.Method)
		}
	}
	return cmd.run(args)
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

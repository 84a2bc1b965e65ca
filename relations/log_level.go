package relations

import "log/slog"

// infoRejections are the operators whose refused rows 23.03 logs at INFO
// (ovn-util.c and northd.c read port addresses, port security and router
// port networks with VLOG_INFO_RL): ovn-northd.at greps these lines, and
// an operator's log filter sees them at the level it expects.
var infoRejections = map[string]bool{
	"switch port addresses": true,
	"router port networks":  true,
}

// errRejections are the operators whose refused rows 26.03 logs at ERR:
// the DHCP relay servers that OVS's inet_parse_active cannot read.
var errRejections = map[string]bool{
	"DHCP relay servers": true,
}

// RejectionLevel is the level at which 23.03 logs a row that the operator
// named op refuses: INFO for port addresses and unreadable router port
// networks, WARN for the rest (networks of address 0.0.0.0, routes, NAT,
// load balancers, duplicates, options).
func RejectionLevel(op string) slog.Level {
	if errRejections[op] {
		return slog.LevelError
	}
	if infoRejections[op] {
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

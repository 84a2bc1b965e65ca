package relations

import "log/slog"

// infoRejections are the operators whose refused rows 23.03 logs at INFO
// (ovn-util.c and northd.c read port addresses and port security with
// VLOG_INFO_RL): ovn-northd.at greps these lines, and an operator's log
// filter sees them at the level it expects.
var infoRejections = map[string]bool{
	"switch port addresses": true,
}

// RejectionLevel is the level at which 23.03 logs a row that the operator
// named op refuses: INFO for port addresses, WARN for the rest (bad
// networks, routes, NAT, load balancers, duplicates, options).
func RejectionLevel(op string) slog.Level {
	if infoRejections[op] {
		return slog.LevelInfo
	}
	return slog.LevelWarn
}
